//! Functions called with the wrong number of arguments get 1582 (1064
//! where MySQL's grammar spells the call out), unknown functions 1305, as
//! in MariaDB; the right counts answer.

mod oracle;

use oracle::same_on_both;

#[test]
fn wrong_argument_counts_get_1582_as_in_mariadb() {
    same_on_both(
        "arity",
        &[
            "SELECT ABS()",
            "SELECT ABS(1, 2)",
            "SELECT ABS(-3)",
            "SELECT CONCAT()",
            "SELECT CONCAT_WS(',')",
            "SELECT CONCAT_WS(',', 'a', 'b')",
            "SELECT IFNULL(1)",
            "SELECT IF(1, 2)",
            "SELECT NULLIF(1, 2, 3)",
            "SELECT ROUND()",
            "SELECT ROUND(1.25, 1)",
            "SELECT ROUND(1, 2, 3)",
            "SELECT TRUNCATE(1.5)",
            "SELECT LEAST(1)",
            "SELECT GREATEST(1, 2, 3)",
            "SELECT REPEAT('a')",
            "SELECT REPLACE('abc', 'b')",
            "SELECT LENGTH('ab', 'c')",
            "SELECT UPPER()",
            "SELECT HEX()",
            "SELECT ISNULL()",
            "SELECT COALESCE()",
            "SELECT LEFT('a')",
            "SELECT SUBSTRING('a')",
            "SELECT MOD(1)",
            "SELECT DATABASE(1)",
            "SELECT VERSION(1)",
            "SELECT CONNECTION_ID(1)",
            "SELECT LAST_INSERT_ID(1, 2)",
            "SELECT USER(1)",
            "SELECT NOW(1, 2)",
            "SELECT RAND(1, 2)",
            "SELECT FOUND_ROWS(1)",
            "SELECT UNIX_TIMESTAMP(1, 2)",
            "SELECT SLEEP()",
            "SELECT CEIL(1, 2)",
            "SELECT CURRENT_DATE(1)",
            "SELECT NO_SUCH_FUNCTION(1)",
        ],
    );
}
