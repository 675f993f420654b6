//! Set operations, recursive CTEs and derived tables compare rows in their
//! columns' collations (`rel::bind::union_colls`, `result_colls`), compared
//! with the MariaDB the harness starts: a utf8mb4_bin column keeps 'a' and
//! 'A' apart in UNION DISTINCT / EXCEPT / INTERSECT and ORDER BY, and wins
//! over a utf8mb4_general_ci one.

mod oracle;

use oracle::same_on_both;

#[test]
fn set_operations_compare_in_the_aggregated_collation_as_mariadb() {
    same_on_both(
        "setop_colls",
        &[
            "CREATE TABLE c1 (id INT PRIMARY KEY, s VARCHAR(5) COLLATE utf8mb4_bin)",
            "CREATE TABLE c2 (id INT PRIMARY KEY, s VARCHAR(5) COLLATE utf8mb4_general_ci)",
            "INSERT INTO c1 VALUES (1, 'a'), (2, 'A'), (3, 'b'), (4, 'a')",
            "INSERT INTO c2 VALUES (1, 'B'), (2, 'a'), (3, 'c')",
            // utf8mb4_bin on both sides: 'a' and 'A' stay apart.
            "SELECT s FROM c1 UNION SELECT s FROM c1 ORDER BY s",
            "SELECT s FROM c1 WHERE id < 3 UNION SELECT s FROM c1 WHERE id >= 3 ORDER BY s",
            // bin and general_ci: bin wins, whichever side it is on.
            "SELECT s FROM c1 UNION SELECT s FROM c2 ORDER BY s",
            "SELECT s FROM c2 UNION SELECT s FROM c1 ORDER BY s",
            "SELECT s FROM c1 UNION ALL SELECT s FROM c2 ORDER BY s, 1",
            // A literal takes the column's collation.
            "SELECT s FROM c2 UNION SELECT 'A' ORDER BY s",
            "SELECT s FROM c1 UNION SELECT 'B' ORDER BY s",
            "SELECT 'B' UNION SELECT s FROM c1 ORDER BY 1",
            // EXCEPT / INTERSECT.
            "SELECT s FROM c1 INTERSECT SELECT s FROM c2 ORDER BY s",
            "SELECT s FROM c1 EXCEPT SELECT s FROM c2 ORDER BY s",
            "SELECT s FROM c2 EXCEPT SELECT s FROM c1 ORDER BY s",
            "SELECT s FROM c2 INTERSECT SELECT 'A'",
            // Nested set operations and derived tables over them.
            "SELECT s FROM c2 UNION (SELECT s FROM c1 UNION SELECT 'C') ORDER BY s",
            "SELECT d.s, COUNT(*) FROM (SELECT s FROM c1 UNION ALL SELECT s FROM c2) d GROUP BY d.s ORDER BY d.s",
            "SELECT DISTINCT d.s FROM (SELECT s FROM c1) d ORDER BY d.s",
            "SELECT d.s FROM (SELECT s FROM c1) d WHERE d.s = 'A'",
            // Recursive CTEs: the anchor's collation.
            "WITH RECURSIVE r (s, n) AS (SELECT s, 1 FROM c1 WHERE id = 1 UNION SELECT UPPER(s), 1 FROM r WHERE n < 3) SELECT s FROM r ORDER BY s",
            "WITH RECURSIVE r (s, n) AS (SELECT s, 1 FROM c2 WHERE id = 2 UNION SELECT UPPER(s), 1 FROM r WHERE n < 3) SELECT s FROM r ORDER BY s",
        ],
    );
}
