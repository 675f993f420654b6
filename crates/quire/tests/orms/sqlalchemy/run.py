"""SQLAlchemy 2.x and Alembic against quire: create_all, Session CRUD,
joins and eager loading, reflection compared with the declared metadata,
and Alembic autogenerate (an empty diff after create_all; exactly the
added column, index and table after the models change; `upgrade` applies
them).

Usage: run.py PORT PASSWORD. Prints one line per check; on the first
failure prints the SQL that failed (or the last SQL run) and exits 1.
"""
import datetime
import decimal
import os
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pymysql
from sqlalchemy import case, create_engine, delete, event, func, inspect, select, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.orm import Session, joinedload, selectinload

from models import Status, declare

PORT, PASSWORD = int(sys.argv[1]), sys.argv[2]
DB = "sa_shop"

admin = pymysql.connect(host="127.0.0.1", port=PORT, user="root", password=PASSWORD)
admin.cursor().execute(f"DROP DATABASE IF EXISTS {DB}")
admin.cursor().execute(f"CREATE DATABASE {DB}")
admin.close()

URL = f"mysql+pymysql://root:{PASSWORD}@127.0.0.1:{PORT}/{DB}?charset=utf8mb4"
engine = create_engine(URL)
last_sql = []


@event.listens_for(engine, "before_cursor_execute")
def remember_sql(conn, cursor, statement, parameters, context, executemany):
    last_sql[:] = [statement, parameters]


def check(name, got, want):
    if got != want:
        raise AssertionError(f"{name}: got {got!r}, want {want!r}")
    print(f"ok {name}")


def crud(m):
    Customer, Product, Order, OrderLine = m["Customer"], m["Product"], m["Order"], m["OrderLine"]
    with Session(engine) as s:
        ann = Customer(email="ann@example.com", name="Ann", vip=True)
        bob = Customer(email="bob@example.com", name="Bob")
        pen = Product(sku="PEN", price=decimal.Decimal("1.50"), attrs={"colour": "blue"})
        ink = Product(sku="INK", price=decimal.Decimal("4.25"), stock=7, description="a bottle")
        s.add_all([ann, bob, pen, ink])
        s.flush()
        ann.orders.append(Order(placed=datetime.date(2024, 5, 1), lines=[OrderLine(product=pen, qty=3),
                                                                        OrderLine(product=ink, qty=1)]))
        ann.orders.append(Order(placed=datetime.date(2024, 6, 2), status=Status.paid,
                                lines=[OrderLine(product=pen, qty=10)]))
        bob.orders.append(Order(placed=datetime.date(2024, 6, 3), note="gift"))
        s.commit()
        check("autoincrement ids", [c.id for c in (ann, bob)], [ann.id, ann.id + 1])
        check("server_default now()", isinstance(s.get(Customer, ann.id).created, datetime.datetime), True)
        check("Python default and server_default", (pen.stock, ink.stock, bob.vip), (0, 7, False))

    with Session(engine) as s:
        rows = s.execute(select(Customer.name, func.count(Order.id), func.sum(OrderLine.qty))
                         .join(Customer.orders).outerjoin(Order.lines)
                         .group_by(Customer.name).order_by(Customer.name)).all()
        check("join + GROUP BY", [tuple(r) for r in rows], [("Ann", 3, 14), ("Bob", 1, None)])
        custs = s.scalars(select(Customer).options(selectinload(Customer.orders).selectinload(Order.lines))
                          .order_by(Customer.id)).all()
        check("selectinload", [(c.name, [[l.qty for l in o.lines] for o in c.orders]) for c in custs],
              [("Ann", [[3, 1], [10]]), ("Bob", [[]])])
        orders = s.scalars(select(Order).options(joinedload(Order.customer)).order_by(Order.id)).all()
        check("joinedload", [(o.customer.name, o.status) for o in orders],
              [("Ann", Status.new), ("Ann", Status.paid), ("Bob", Status.new)])
        check("Enum filter", s.scalar(select(func.count()).select_from(Order).where(Order.status == Status.paid)), 1)
        check("JSON", s.scalar(select(Product.attrs).where(Product.sku == "PEN")), {"colour": "blue"})
        check("JSON path", s.scalar(select(Product.sku).where(Product.attrs["colour"].as_string() == "blue")), "PEN")
        check("LIMIT/OFFSET", s.scalars(select(Product.sku).order_by(Product.sku).limit(1).offset(1)).all(), ["PEN"])
        big = select(OrderLine.order_id).where(OrderLine.qty >= 10).scalar_subquery()
        check("IN (subquery)", s.scalars(select(Order.placed).where(Order.id.in_(big))).all(), [datetime.date(2024, 6, 2)])
        has_lines = select(OrderLine).where(OrderLine.order_id == Order.id).exists()
        check("EXISTS", s.scalar(select(func.count(Order.id)).where(~has_lines)), 1)
        ranked = select(OrderLine.order_id, OrderLine.qty,
                        func.row_number().over(partition_by=OrderLine.order_id, order_by=OrderLine.qty.desc()).label("rn"))
        check("window function", [tuple(r) for r in s.execute(ranked.order_by(OrderLine.order_id, "rn"))],
              [(orders[0].id, 3, 1), (orders[0].id, 1, 2), (orders[1].id, 10, 1)])
        totals = select(OrderLine.order_id, func.sum(OrderLine.qty).label("n")).group_by(OrderLine.order_id).cte("totals")
        check("CTE", s.scalars(select(totals.c.n).order_by(totals.c.n)).all(), [4, 10])
        check("UNION", sorted(s.scalars(select(Customer.name).union(select(Product.sku))).all()), ["Ann", "Bob", "INK", "PEN"])
        check("CASE", s.scalars(select(case((Product.price > 2, "dear"), else_="cheap")).order_by(Product.sku)).all(),
              ["dear", "cheap"])
        check("date comparison", s.scalar(select(func.count(Order.id)).where(Order.placed >= datetime.date(2024, 6, 1))), 2)

    with Session(engine) as s:
        s.execute(update(Product).where(Product.sku == "PEN").values(stock=Product.stock + 5))
        ink = s.scalars(select(Product).where(Product.sku == "INK").with_for_update()).one()
        ink.price = decimal.Decimal("4.75")
        s.commit()
        check("UPDATE with an expression", s.scalar(select(Product.stock).where(Product.sku == "PEN")), 5)
        check("ORM update after SELECT ... FOR UPDATE", s.scalar(select(Product.price).where(Product.sku == "INK")),
              decimal.Decimal("4.75"))
        s.add(Customer(email="ann@example.com", name="dup"))
        try:
            s.commit()
            raise AssertionError("a duplicate unique email was accepted")
        except Exception as e:
            if "1062" not in str(e):
                raise
            s.rollback()
            print("ok duplicate unique refused with 1062")
        upsert = mysql_insert(Product).values(sku="PEN", price=2, stock=1)
        s.execute(upsert.on_duplicate_key_update(stock=upsert.inserted.stock + Product.stock))
        s.commit()
        check("INSERT ... ON DUPLICATE KEY UPDATE", s.scalar(select(Product.stock).where(Product.sku == "PEN")), 6)
        merged = s.merge(Product(id=s.scalar(select(Product.id).where(Product.sku == "INK")), sku="INK", price=5, stock=2))
        s.commit()
        check("Session.merge", (merged.price, merged.stock), (decimal.Decimal("5.00"), 2))
        s.execute(update(Customer).where(Customer.name == "Bob").values(name="Robert"))
        s.rollback()
        check("rollback", s.scalar(select(func.count()).select_from(Customer).where(Customer.name == "Bob")), 1)
        with s.begin_nested():
            s.add(Product(sku="NIB", price=1))
        try:
            with s.begin_nested():
                s.add(Product(sku="CAP", price=1))
                s.flush()
                raise RuntimeError("roll back to the savepoint")
        except RuntimeError:
            pass
        s.commit()
        check("savepoints", sorted(s.scalars(select(Product.sku)).all()), ["INK", "NIB", "PEN"])

    with Session(engine) as s:
        ann = s.scalars(select(Customer).where(Customer.name == "Ann")).one()
        s.delete(ann)  # the ORM cascade deletes her orders and their lines
        s.commit()
        check("ORM cascade delete", (s.scalar(select(func.count()).select_from(Order)),
                                     s.scalar(select(func.count()).select_from(OrderLine))), (1, 0))
        s.execute(delete(Customer).where(Customer.name == "Bob"))  # ON DELETE CASCADE in the database
        s.commit()
        check("ON DELETE CASCADE", s.scalar(select(func.count()).select_from(Order)), 0)


def reflection(metadata):
    insp = inspect(engine)
    check("get_table_names", sorted(insp.get_table_names()), sorted(metadata.tables))
    for table in metadata.sorted_tables:
        name = table.name
        cols = insp.get_columns(name)
        check(f"{name} columns", [(c["name"], c["nullable"]) for c in cols],
              [(c.name, c.nullable) for c in table.columns])
        for c in cols:
            declared = table.columns[c["name"]].type
            # MySQL spells Boolean TINYINT(1) and Enum ENUM(...): compare what reflection can know.
            want = declared.compile(dialect=engine.dialect).split("(")[0]
            want = {"BOOL": "TINYINT", "NUMERIC": "DECIMAL"}.get(want, want)
            check(f"{name}.{c['name']} type", str(c["type"]).split("(")[0].split(" ")[0], want)
        check(f"{name} primary key", insp.get_pk_constraint(name)["constrained_columns"],
              [c.name for c in table.primary_key.columns])
        fks = sorted((tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]),
                      (f["options"].get("ondelete") or "").upper()) for f in insp.get_foreign_keys(name))
        want_fks = sorted((tuple(c.parent.name for c in f.elements), f.elements[0].column.table.name,
                           tuple(c.column.name for c in f.elements), (f.ondelete or "").upper())
                          for f in table.foreign_key_constraints)
        check(f"{name} foreign keys", fks, want_fks)
        idx = sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(name)
                     if not i.get("duplicates_constraint"))
        # MySQL indexes each foreign key: only the declared indexes are compared.
        declared_idx = sorted((i.name, tuple(c.name for c in i.columns), bool(i.unique)) for i in table.indexes)
        check(f"{name} indexes", [i for i in idx if i[0] in {d[0] for d in declared_idx}], declared_idx)
        uqs = sorted((u["name"], tuple(u["column_names"])) for u in insp.get_unique_constraints(name))
        want_uqs = sorted((u.name, tuple(c.name for c in u.columns)) for u in table.constraints
                          if type(u).__name__ == "UniqueConstraint")
        # unique=True columns make unnamed constraints: MySQL names them after the column.
        want_uqs = sorted((n or cols_[0], cols_) for n, cols_ in want_uqs)
        check(f"{name} unique constraints", uqs, want_uqs)


def alembic(v1, v2):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.config import Config
    from alembic.migration import MigrationContext

    def diff(metadata):
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn), metadata)

    check("autogenerate after create_all is empty", diff(v1), [])
    changes = diff(v2)
    # Column changes come as lists of (op, schema, table, column, ...).
    kinds = sorted((d[0][0], f"{d[0][2]}.{d[0][3]}: {d[0][5]} -> {d[0][6]}") if isinstance(d, list)
                   else (d[0], d[1].name if hasattr(d[1], "name") else d[2] + "." + d[3].name) for d in changes)
    check("autogenerate finds the changes", kinds,
          [("add_column", "customer.phone"), ("add_index", "ix_product_price"), ("add_table", "review"),
           ("modify_type", "customer.name: VARCHAR(80) -> VARCHAR(100)")])

    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config(os.path.join(tmp, "alembic.ini"))
        command.init(cfg, os.path.join(tmp, "migrations"))
        cfg = Config(os.path.join(tmp, "alembic.ini"))
        cfg.set_main_option("sqlalchemy.url", URL.replace("%", "%%"))
        cfg.attributes["target_metadata"] = v2
        env = os.path.join(tmp, "migrations", "env.py")
        src = open(env).read().replace("target_metadata = None", "target_metadata = config.attributes['target_metadata']")
        open(env, "w").write(src)
        script = command.revision(cfg, message="phone, price index, review", autogenerate=True)
        body = open(script.path).read()
        for op in ["op.add_column('customer'", "op.create_index('ix_product_price'", "op.create_table('review'",
                   "op.alter_column('customer', 'name'"]:
            check(f"revision contains {op}", op in body, True)
        command.upgrade(cfg, "head")
        check("autogenerate after upgrade is empty", diff(v2), [])
        command.downgrade(cfg, "base")
        check("downgrade reverses it", diff(v1), [])


try:
    v1, v2 = declare(1), declare(2)
    v1["Base"].metadata.drop_all(engine)
    v1["Base"].metadata.create_all(engine)
    reflection(v1["Base"].metadata)
    alembic(v1["Base"].metadata, v2["Base"].metadata)
    crud(v1)
    v2["Base"].metadata.drop_all(engine)
    check("drop_all", [t for t in inspect(engine).get_table_names() if t != "alembic_version"], [])
except Exception:
    traceback.print_exc()
    print(f"last SQL: {last_sql}", file=sys.stderr)
    sys.exit(1)
print("sqlalchemy: all checks passed")
