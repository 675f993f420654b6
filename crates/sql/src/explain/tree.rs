//! The iterator tree of EXPLAIN FORMAT=TREE and EXPLAIN ANALYZE, and its
//! text as MySQL 8.0 prints it (`PrintQueryPlan`): each operator's lines
//! start with `-> `, indented four spaces per level; an operator of
//! several lines (`Table scan on <temporary>` over `Aggregate using
//! temporary table`) goes one level deeper per line; a child with a
//! heading (`Hash`, `Select #2 (subquery in condition; run only once)`)
//! has the heading on its own line and the child one level under it.
//!
//! A line may carry the estimate, `  (cost=C rows=R)` (cost with two
//! decimals, rows rounded to an integer unless that would print 0 for a
//! positive estimate), and under ANALYZE the measures, `(actual
//! time=F..L rows=N loops=L)` or `(never executed)`, separated from the
//! text by two spaces and from an estimate by one.

use super::profile::Counter;

/// One line of an operator.
#[derive(Debug, Default)]
pub struct Step {
    pub text: String,
    /// (cost, rows) from the cost model.
    pub est: Option<(f64, f64)>,
    /// What execution measured, when it ran.
    pub actual: Option<Counter>,
}

impl Step {
    pub fn new(text: impl Into<String>) -> Self {
        Step { text: text.into(), est: None, actual: None }
    }
}

/// An operator: its lines and its inputs.
#[derive(Debug, Default)]
pub struct Op {
    pub steps: Vec<Step>,
    pub children: Vec<Child>,
    /// Subqueries of the select list: printed after the operator's
    /// subtree, at its own level (MySQL's "subquery in projection").
    pub trailing: Vec<Child>,
}

#[derive(Debug)]
pub struct Child {
    pub heading: Option<String>,
    pub op: Op,
}

impl Op {
    pub fn new(step: Step) -> Self {
        Op { steps: vec![step], children: Vec::new(), trailing: Vec::new() }
    }

    /// This operator over `input`.
    pub fn over(step: Step, input: Op) -> Self {
        Op { steps: vec![step], children: vec![Child { heading: None, op: input }], trailing: Vec::new() }
    }

    /// Moves `input`'s trailing subqueries to this operator (they belong
    /// at the top of their block).
    pub fn lift_trailing(mut self) -> Self {
        let mut moved = Vec::new();
        for c in &mut self.children {
            moved.append(&mut c.op.trailing);
        }
        self.trailing.extend(moved);
        self
    }
}

/// MySQL's text of an estimate.
fn est_text(cost: f64, rows: f64) -> String {
    let rows_text = if rows.round() == 0.0 && rows >= 1e-9 {
        format!("{:.1}", rows).trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{}", rows.round() as i64)
    };
    format!("  (cost={:.2} rows={rows_text})", cost)
}

/// The tree's text, lines joined by '\n' (with a trailing '\n', as MySQL).
pub fn render(op: &Op, analyze: bool) -> String {
    let mut out = String::new();
    write(op, 0, analyze, &mut out);
    out
}

fn write(op: &Op, top: usize, analyze: bool, out: &mut String) {
    let mut level = top;
    for s in &op.steps {
        out.push_str(&" ".repeat(level * 4));
        out.push_str("-> ");
        out.push_str(&s.text);
        if let Some((c, r)) = s.est {
            out.push_str(&est_text(c, r));
        }
        if analyze {
            out.push_str(if s.est.is_some() { " " } else { "  " });
            match &s.actual {
                Some(c) => out.push_str(&c.text()),
                None => out.push_str("(never executed)"),
            }
        }
        out.push('\n');
        level += 1;
    }
    for c in &op.children {
        child(c, level, analyze, out);
    }
    for c in &op.trailing {
        child(c, top, analyze, out);
    }
}

fn child(c: &Child, level: usize, analyze: bool, out: &mut String) {
    match &c.heading {
        Some(h) => {
            out.push_str(&" ".repeat(level * 4));
            out.push_str("-> ");
            out.push_str(h);
            out.push('\n');
            write(&c.op, level + 1, analyze, out);
        }
        None => write(&c.op, level, analyze, out),
    }
}
