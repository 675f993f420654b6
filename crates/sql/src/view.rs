//! Views: `CREATE [OR REPLACE] VIEW`, `DROP VIEW [IF EXISTS]`, `SHOW
//! CREATE VIEW`, and their expansion into the queries that read them.
//!
//! A view is stored as the text of its definition (`catalog.rs`,
//! `mysql/quire_view`), as MySQL prints it: `CREATE ALGORITHM=UNDEFINED
//! DEFINER=... SQL SECURITY DEFINER VIEW name [(columns)] AS query`, the
//! query's unqualified table names qualified by the database current at
//! creation (as MySQL resolves and stores them), so the view reads the same
//! tables whatever database the reader is in. A query naming a view binds
//! the view's query in its place, as a derived table (`rel::bind`), which
//! the reading block merges into itself where it can (`rel::merge`,
//! MySQL's MERGE algorithm) unless the view says ALGORITHM=TEMPTABLE; the
//! ALGORITHM given is kept in the definition (MERGE on a query that cannot
//! be merged is warning 1354 and UNDEFINED). The definition is checked at
//! creation by binding it. WITH [CASCADED | LOCAL] CHECK OPTION is kept
//! at the end of the stored text (`strip_check_option` reads it back);
//! writing through views is `view_dml`'s.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast;

use crate::admin;
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::Output;

/// A view a query names: its database, name and stored definition.
#[derive(Clone, Debug)]
pub struct ViewRef {
    pub db: String,
    pub name: String,
    pub definition: String,
}

/// WITH [CASCADED | LOCAL] CHECK OPTION of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckOption {
    /// The view's condition and those of the views under it.
    Cascaded,
    /// The view's own condition (and the check options of views under it).
    Local,
}

/// How `session::parse` hands a CREATE VIEW's check option to [`create`]
/// (sqlparser does not parse the clause): the text is parsed without it
/// and `CreateView::comment`, which MySQL's CREATE VIEW has no syntax for,
/// carries this prefix and the option's name.
pub(crate) const CHECK_OPTION_MARK: &str = "\u{1}quire check option ";

/// `text` without a trailing `WITH [CASCADED | LOCAL] CHECK OPTION` (and
/// `;`), and the option, if it ends so.
pub(crate) fn strip_check_option(text: &str) -> Option<(&str, CheckOption)> {
    let mut t = text.trim_end_matches(|c: char| c == ';' || c.is_whitespace());
    let take = |t: &mut &str, w: &str| -> bool {
        let Some(at) = t.len().checked_sub(w.len()) else { return false };
        match (t.get(at..), t.get(..at)) {
            (Some(tail), Some(head)) if tail.eq_ignore_ascii_case(w) && head.ends_with(char::is_whitespace) => {
                *t = head.trim_end();
                true
            }
            _ => false,
        }
    };
    if !(take(&mut t, "OPTION") && take(&mut t, "CHECK")) {
        return None;
    }
    let kind = if take(&mut t, "LOCAL") {
        CheckOption::Local
    } else {
        take(&mut t, "CASCADED");
        CheckOption::Cascaded
    };
    take(&mut t, "WITH").then_some((t, kind))
}

impl ViewRef {
    /// The view's WITH CHECK OPTION, if it has one.
    pub fn check_option(&self) -> Option<CheckOption> {
        strip_check_option(&self.definition).map(|(_, k)| k)
    }

    /// Whether the view says ALGORITHM=TEMPTABLE (never merged into the
    /// query reading it, nor written through).
    pub fn temptable(&self) -> bool {
        let head = self.definition.get(..30).unwrap_or("");
        head.starts_with("CREATE ALGORITHM=TEMPTABLE ")
    }

    /// The stored definition parsed: column names, query, and the user
    /// whose privileges it reads with (`None`: SQL SECURITY INVOKER, the
    /// reader's).
    pub fn parse(&self) -> Result<(Vec<String>, ast::Query, Option<String>)> {
        let text = strip_check_option(&self.definition).map_or(self.definition.as_str(), |(t, _)| t);
        let stmts = crate::depth::parse_sql(text)?;
        match stmts.into_iter().next() {
            Some(ast::Statement::CreateView(cv)) => {
                let (definer, invoker) = security(&cv);
                let rights = if invoker { None } else { definer };
                Ok((cv.columns.iter().map(|c| c.name.value.clone()).collect(), *cv.query, rights))
            }
            _ => Err(SqlError::new(
                1356,
                "HY000",
                format!(
                    "View '{}.{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them",
                    self.db, self.name
                ),
            )),
        }
    }
}

/// A definition's DEFINER user, if named, and whether it says SQL
/// SECURITY INVOKER (DEFINER, MySQL's default, otherwise).
fn security(cv: &ast::CreateView) -> (Option<String>, bool) {
    let Some(p) = &cv.params else { return (None, false) };
    let definer = p.definer.as_ref().map(|d| match d {
        ast::GranteeName::UserHost { user, .. } => user.value.clone(),
        ast::GranteeName::ObjectName(n) => n.to_string().trim_matches(|c| c == '`' || c == '\'').to_string(),
    });
    (definer, matches!(p.security, Some(ast::CreateViewSecurity::Invoker)))
}

/// Names of the common table expressions `q` defines anywhere.
fn cte_names(q: &ast::Query) -> HashSet<String> {
    let mut names = HashSet::new();
    struct Nested<'a>(&'a mut HashSet<String>);
    impl ast::Visitor for Nested<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
            if let Some(w) = &q.with {
                for c in &w.cte_tables {
                    self.0.insert(c.alias.name.value.to_ascii_lowercase());
                }
            }
            ControlFlow::Continue(())
        }
    }
    use ast::Visit;
    let _ = q.visit(&mut Nested(&mut names));
    names
}

/// Qualifies the query's unqualified table names with `db` (not the names
/// of its common table expressions).
fn qualify(q: &mut ast::Query, db: &str) {
    let ctes = cte_names(q);
    let _ = ast::visit_relations_mut(q, |r: &mut ast::ObjectName| {
        if r.0.len() == 1 {
            let name = r.0[0].as_ident().map(|i| i.value.clone()).unwrap_or_default();
            if !ctes.contains(&name.to_ascii_lowercase()) {
                let db_part = ast::ObjectNamePart::Identifier(ast::Ident::with_quote('`', db));
                r.0.insert(0, db_part);
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Whether the query holds a `?` marker (a view cannot: 1351).
fn has_parameter(q: &ast::Query) -> bool {
    ast::visit_expressions(q, |e: &ast::Expr| match e {
        ast::Expr::Value(v) if matches!(&v.value, ast::Value::Placeholder(p) if p.starts_with('?')) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// CREATE [OR REPLACE] VIEW.
pub fn create(s: &mut Session, cv: &ast::CreateView) -> Result<Output> {
    if cv.materialized || cv.temporary || cv.to.is_some() || cv.or_alter {
        return Err(SqlError::unsupported("this kind of view"));
    }
    let (db, name) = admin::split_name(s, &cv.name)?;
    admin::check_access(s, &db)?;
    crate::catalog::check_table_name(&name)?;
    if !s.shared.catalog.database_exists(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    let mut query = (*cv.query).clone();
    if has_parameter(&query) {
        return Err(SqlError::new(1351, "HY000", "View's SELECT contains a variable or parameter"));
    }
    // Unqualified names are the current database's, as MySQL resolves them
    // (without one, binding below answers 1046).
    if let Some(current) = s.db.clone() {
        qualify(&mut query, &current);
    }
    // Bound now, so that a view of unknown tables or columns is refused.
    let plan = crate::rel::compile(query.clone(), &s.resolver())?;
    let mut names: Vec<String> = plan.plan.columns().iter().map(|c| c.name.clone()).collect();
    if !cv.columns.is_empty() {
        if cv.columns.len() != names.len() {
            return Err(SqlError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
        }
        names = cv.columns.iter().map(|c| c.name.value.clone()).collect();
    }
    let mut seen = HashSet::new();
    for n in &names {
        if !seen.insert(n.to_ascii_lowercase()) {
            return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{n}'")));
        }
    }
    let cols = if cv.columns.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(","))
    };
    // DEFINER: the creator unless named; naming another needs ALL on *.*
    // (quire's SUPER / SET_USER_ID).
    let (definer, invoker) = security(cv);
    let definer = definer.unwrap_or_else(|| s.user.clone());
    let admin = s.shared.catalog.user(&s.user).is_some_and(|u| u.grants.contains("*"));
    if definer != s.user && !admin {
        return Err(SqlError::new(
            1227,
            "42000",
            "Access denied; you need (at least one of) the SUPER or SET_USER_ID privilege(s) for this operation",
        ));
    }
    let check = match cv.comment.as_deref().map(|c| c.strip_prefix(CHECK_OPTION_MARK)) {
        None => "",
        Some(Some("LOCAL")) => " WITH LOCAL CHECK OPTION",
        Some(Some(_)) => " WITH CASCADED CHECK OPTION",
        Some(None) => return Err(SqlError::unsupported("COMMENT on a view")),
    };
    let temptable =
        matches!(cv.params.as_ref().and_then(|p| p.algorithm.as_ref()), Some(ast::CreateViewAlgorithm::TempTable));
    if !check.is_empty() && (temptable || !crate::view_dml::updatable(&query)) {
        return Err(SqlError::new(1368, "HY000", format!("CHECK OPTION on non-updatable view `{db}`.`{name}`")));
    }
    // ALGORITHM: MERGE where the query cannot be merged is MySQL's and
    // MariaDB's warning 1354, and UNDEFINED.
    let algorithm = match cv.params.as_ref().and_then(|p| p.algorithm.as_ref()) {
        Some(ast::CreateViewAlgorithm::Merge) if !crate::rel::mergeable_plan(&plan.plan) => {
            s.warn(1354, "View merge algorithm can't be used here for now (assumed undefined algorithm)".into());
            "UNDEFINED"
        }
        Some(ast::CreateViewAlgorithm::Merge) => "MERGE",
        Some(ast::CreateViewAlgorithm::TempTable) => "TEMPTABLE",
        Some(ast::CreateViewAlgorithm::Undefined) | None => "UNDEFINED",
    };
    let definition = format!(
        "CREATE ALGORITHM={algorithm} DEFINER=`{definer}`@`%` SQL SECURITY {} VIEW `{name}`{cols} AS {}{check}",
        if invoker { "INVOKER" } else { "DEFINER" },
        crate::depth::unfolded_sql(&query)
    );
    s.shared.catalog.create_view(&db, &name, &definition, cv.or_replace)?;
    Ok(Output::ok())
}

/// DROP VIEW [IF EXISTS] v, ...: 1051 names the missing ones (a note with
/// IF EXISTS).
pub fn drop(s: &mut Session, if_exists: bool, names: &[ast::ObjectName]) -> Result<Output> {
    let mut missing = Vec::new();
    for n in names {
        let (db, v) = admin::split_name(s, n)?;
        admin::check_access(s, &db)?;
        if !s.shared.catalog.drop_view(&db, &v)? {
            missing.push(format!("{db}.{v}"));
        }
    }
    admin::unknown_tables(s, &missing, if_exists)
}

/// SHOW CREATE VIEW: View, Create View, character_set_client,
/// collation_connection.
pub fn show_create(s: &Session, name: &ast::ObjectName) -> Result<Output> {
    let (db, v) = admin::split_name(s, name)?;
    admin::check_access(s, &db)?;
    let Some(definition) = s.shared.catalog.view(&db, &v) else {
        return Err(SqlError::new(1347, "HY000", format!("'{db}.{v}' is not VIEW")));
    };
    use quire_engine::row::Value;
    let columns =
        crate::session::text_columns(&["View", "Create View", "character_set_client", "collation_connection"]);
    let row = vec![
        Value::Str(v),
        Value::Str(definition),
        Value::Str("utf8mb4".into()),
        Value::Str("utf8mb4_general_ci".into()),
    ];
    Ok(Output::Rows { columns, rows: vec![row] })
}
