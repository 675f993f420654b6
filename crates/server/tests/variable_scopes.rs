//! System variable scopes beside MariaDB: reading or setting a variable
//! in a scope it does not have answers the same error codes.

mod oracle;

use oracle::same_on_both;

/// `@@session.` of a global-only variable is 1238 (MySQL and MariaDB);
/// `@@x` and `@@global.x` read it. Setting one per session is 1229, a
/// read-only one 1238 (read-only is checked first).
#[test]
fn session_scope_of_a_global_only_variable_is_1238_as_in_mariadb() {
    same_on_both(
        "scopes",
        &[
            "SELECT @@session.max_connections",
            "SELECT @@local.max_connections",
            "SELECT @@global.max_connections > 0",
            "SELECT @@max_connections > 0",
            "SELECT @@session.autocommit",
            "SET SESSION back_log = 10",
            "SET SESSION max_connections = 10",
        ],
    );
}
