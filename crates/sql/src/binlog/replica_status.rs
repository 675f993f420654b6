//! SHOW REPLICA STATUS / SHOW SLAVE STATUS: quire replicates from no
//! source, so the answer is MySQL 8.0's columns and no row (what MySQL
//! and MariaDB answer on a server that is not a replica). Monitoring
//! tools send it on every scrape (prometheus-mysqld-exporter's
//! `slave_status` collector, on by default) and fail on an error.
//! SHOW SLAVE STATUS has the names MySQL 8.0 keeps for it (Master_Host,
//! Slave_IO_Running ...), SHOW REPLICA STATUS those of 8.0.22 (Source_Host,
//! Replica_IO_Running ...).

use crate::plan::ColMeta;
use crate::session::text_columns;

/// (SHOW SLAVE STATUS name, SHOW REPLICA STATUS name), in MySQL 8.0's order.
const COLUMNS: [(&str, &str); 58] = [
    ("Slave_IO_State", "Replica_IO_State"),
    ("Master_Host", "Source_Host"),
    ("Master_User", "Source_User"),
    ("Master_Port", "Source_Port"),
    ("Connect_Retry", "Connect_Retry"),
    ("Master_Log_File", "Source_Log_File"),
    ("Read_Master_Log_Pos", "Read_Source_Log_Pos"),
    ("Relay_Log_File", "Relay_Log_File"),
    ("Relay_Log_Pos", "Relay_Log_Pos"),
    ("Relay_Master_Log_File", "Relay_Source_Log_File"),
    ("Slave_IO_Running", "Replica_IO_Running"),
    ("Slave_SQL_Running", "Replica_SQL_Running"),
    ("Replicate_Do_DB", "Replicate_Do_DB"),
    ("Replicate_Ignore_DB", "Replicate_Ignore_DB"),
    ("Replicate_Do_Table", "Replicate_Do_Table"),
    ("Replicate_Ignore_Table", "Replicate_Ignore_Table"),
    ("Replicate_Wild_Do_Table", "Replicate_Wild_Do_Table"),
    ("Replicate_Wild_Ignore_Table", "Replicate_Wild_Ignore_Table"),
    ("Last_Errno", "Last_Errno"),
    ("Last_Error", "Last_Error"),
    ("Skip_Counter", "Skip_Counter"),
    ("Exec_Master_Log_Pos", "Exec_Source_Log_Pos"),
    ("Relay_Log_Space", "Relay_Log_Space"),
    ("Until_Condition", "Until_Condition"),
    ("Until_Log_File", "Until_Log_File"),
    ("Until_Log_Pos", "Until_Log_Pos"),
    ("Master_SSL_Allowed", "Source_SSL_Allowed"),
    ("Master_SSL_CA_File", "Source_SSL_CA_File"),
    ("Master_SSL_CA_Path", "Source_SSL_CA_Path"),
    ("Master_SSL_Cert", "Source_SSL_Cert"),
    ("Master_SSL_Cipher", "Source_SSL_Cipher"),
    ("Master_SSL_Key", "Source_SSL_Key"),
    ("Seconds_Behind_Master", "Seconds_Behind_Source"),
    ("Master_SSL_Verify_Server_Cert", "Source_SSL_Verify_Server_Cert"),
    ("Last_IO_Errno", "Last_IO_Errno"),
    ("Last_IO_Error", "Last_IO_Error"),
    ("Last_SQL_Errno", "Last_SQL_Errno"),
    ("Last_SQL_Error", "Last_SQL_Error"),
    ("Replicate_Ignore_Server_Ids", "Replicate_Ignore_Server_Ids"),
    ("Master_Server_Id", "Source_Server_Id"),
    ("Master_UUID", "Source_UUID"),
    ("Master_Info_File", "Source_Info_File"),
    ("SQL_Delay", "SQL_Delay"),
    ("SQL_Remaining_Delay", "SQL_Remaining_Delay"),
    ("Slave_SQL_Running_State", "Replica_SQL_Running_State"),
    ("Master_Retry_Count", "Source_Retry_Count"),
    ("Master_Bind", "Source_Bind"),
    ("Last_IO_Error_Timestamp", "Last_IO_Error_Timestamp"),
    ("Last_SQL_Error_Timestamp", "Last_SQL_Error_Timestamp"),
    ("Master_SSL_Crl", "Source_SSL_Crl"),
    ("Master_SSL_Crlpath", "Source_SSL_Crlpath"),
    ("Retrieved_Gtid_Set", "Retrieved_Gtid_Set"),
    ("Executed_Gtid_Set", "Executed_Gtid_Set"),
    ("Auto_Position", "Auto_Position"),
    ("Replicate_Rewrite_DB", "Replicate_Rewrite_DB"),
    ("Channel_Name", "Channel_Name"),
    ("Master_TLS_Version", "Source_TLS_Version"),
    ("Master_public_key_path", "Source_public_key_path"),
];

/// The columns; `replica_names`: SHOW REPLICA STATUS's.
pub fn columns(replica_names: bool) -> Vec<ColMeta> {
    let names: Vec<&str> = COLUMNS.iter().map(|(old, new)| if replica_names { *new } else { *old }).collect();
    let mut c = text_columns(&names);
    c.extend(text_columns(&[if replica_names { "Get_Source_public_key" } else { "Get_master_public_key" }]));
    c.extend(text_columns(&["Network_Namespace"]));
    c
}
