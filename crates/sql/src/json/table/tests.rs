use std::cell::RefCell;

use quire_engine::row::{Column as SqlColumn, ColumnType, Value};

use super::*;

/// Collects the notes raised; reads nothing.
#[derive(Default)]
struct Notes(RefCell<Vec<u16>>);

impl Env for Notes {
    fn param(&self, _i: usize) -> Result<Value> {
        unreachable!()
    }
    fn agg(&self, _i: usize) -> Result<Value> {
        unreachable!()
    }
    fn sysvar(&self, _name: &str, _global: bool) -> Result<Value> {
        unreachable!()
    }
    fn func(&self, _name: &str, _args: &[Value]) -> Result<Value> {
        unreachable!()
    }
    fn warn(&self, c: Condition) -> Result<()> {
        self.0.borrow_mut().push(c.code);
        Ok(())
    }
    fn mode(&self) -> Mode {
        Mode::default()
    }
}

fn col(name: &str, ty: ColumnType, kind: ColumnKind, out: usize) -> Column {
    Column { def: SqlColumn::new(name, ty), kind, out }
}

fn path_col(name: &str, ty: ColumnType, p: &str, out: usize) -> Column {
    let kind = ColumnKind::Path { path: Path::parse(p).unwrap(), on_empty: OnMissing::Null, on_error: OnMissing::Null };
    col(name, ty, kind, out)
}

fn rows_of(rp: &RowPath, width: usize, doc: &str) -> Vec<Vec<String>> {
    let env = Notes::default();
    let mut out = Vec::new();
    let show = |v: &Value| match v {
        Value::Null => "NULL".to_string(),
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        other => format!("{other:?}"),
    };
    rp.each(&Value::Str(doc.into()), width, "jt", &env, &mut |r| {
        out.push(r.iter().map(show).collect());
        Ok(true)
    })
    .unwrap();
    out
}

const INT: ColumnType = ColumnType::Int { unsigned: false };

#[test]
fn sibling_nested_paths_take_turns_and_an_empty_parent_row_comes_once() {
    // id FOR ORDINALITY, NESTED '$.a[*]' (x), NESTED '$.b[*]' (y).
    let rp = RowPath {
        path: Path::parse("$[*]").unwrap(),
        columns: vec![col("id", INT, ColumnKind::Ordinality, 0)],
        nested: vec![
            RowPath { path: Path::parse("$.a[*]").unwrap(), columns: vec![path_col("x", INT, "$", 1)], nested: vec![] },
            RowPath { path: Path::parse("$.b[*]").unwrap(), columns: vec![path_col("y", INT, "$", 2)], nested: vec![] },
        ],
    };
    let got = rows_of(&rp, 3, r#"[{"a": [1, 2], "b": [3]}, {"b": [4]}, {}]"#);
    let want: Vec<Vec<&str>> = vec![
        vec!["1", "1", "NULL"],
        vec!["1", "2", "NULL"],
        vec!["1", "NULL", "3"],
        vec!["2", "NULL", "4"],
        vec!["3", "NULL", "NULL"],
    ];
    assert_eq!(got, want);
}

#[test]
fn values_that_do_not_fit_take_on_error_and_missing_ones_on_empty() {
    let small = ColumnType::Varchar { len: 2 };
    let rp = RowPath {
        path: Path::parse("$[*]").unwrap(),
        columns: vec![
            col(
                "i",
                INT,
                ColumnKind::Path {
                    path: Path::parse("$.v").unwrap(),
                    on_empty: OnMissing::Default(Value::Int(7)),
                    on_error: OnMissing::Default(Value::Int(-1)),
                },
                0,
            ),
            path_col("s", small, "$.v", 1),
            col("e", INT, ColumnKind::Exists { path: Path::parse("$.v").unwrap() }, 2),
        ],
        nested: vec![],
    };
    let got = rows_of(&rp, 3, r#"[{"v": 12}, {"v": "abc"}, {"v": [1]}, {}, {"v": null}, {"v": true}]"#);
    let want: Vec<Vec<&str>> = vec![
        vec!["12", "12", "1"],
        vec!["-1", "NULL", "1"],
        vec!["-1", "NULL", "1"],
        vec!["7", "NULL", "0"],
        vec!["NULL", "NULL", "1"],
        vec!["1", "NULL", "1"],
    ];
    assert_eq!(got, want);
}

#[test]
fn error_on_error_names_mysqls_errors() {
    let rp = |ty: ColumnType, doc_path: &str| RowPath {
        path: Path::parse("$").unwrap(),
        columns: vec![col(
            "c",
            ty,
            ColumnKind::Path {
                path: Path::parse(doc_path).unwrap(),
                on_empty: OnMissing::Error,
                on_error: OnMissing::Error,
            },
            0,
        )],
        nested: vec![],
    };
    let code = |rp: RowPath, doc: &str| {
        let env = Notes::default();
        rp.each(&Value::Str(doc.into()), 1, "jt", &env, &mut |_| Ok(true)).unwrap_err().code
    };
    assert_eq!(code(rp(INT, "$.a"), "{}"), 3665);
    assert_eq!(code(rp(INT, "$.a"), r#"{"a": [1]}"#), 3666);
    assert_eq!(code(rp(INT, "$[*]"), "[1, 2]"), 3666);
    assert_eq!(code(rp(ColumnType::TinyInt { unsigned: false }, "$.a"), r#"{"a": 300}"#), 3669);
    assert_eq!(code(rp(INT, "$"), "[1"), 3141);
}

#[test]
fn a_json_column_takes_arrays_and_several_matches_as_one_array() {
    let rp = RowPath {
        path: Path::parse("$").unwrap(),
        columns: vec![path_col("j", ColumnType::Json, "$[*].a", 0)],
        nested: vec![],
    };
    let env = Notes::default();
    let mut got = Vec::new();
    rp.each(&Value::Str(r#"[{"a": 1}, {"a": [2]}]"#.into()), 1, "jt", &env, &mut |r| {
        got.push(r[0].clone());
        Ok(true)
    })
    .unwrap();
    assert!(matches!(&got[..], [Value::Json(j)] if j.to_string() == "[1, [2]]"), "{got:?}");
}

#[test]
fn a_rounded_decimal_is_a_note_not_an_error() {
    let d = SqlColumn::new("d", ColumnType::Decimal { precision: 4, scale: 3, unsigned: false });
    let env = Notes::default();
    let v = convert(&d, Value::Double(1.23456), "jt", 1, &env).unwrap();
    assert_eq!(v, Value::Decimal(quire_engine::row::Decimal::new(1235, 3)));
    assert_eq!(*env.0.borrow(), vec![1265]);
}
