"""Django against quire: the contrib apps' and the shop app's migrations,
CRUD through the ORM, and every migration reversed.

Usage: run.py PORT PASSWORD. Prints one line per check; on the first
failure prints the SQL that failed (or the last SQL run) and exits 1.
"""
import datetime
import decimal
import os
import sys
import tempfile
import traceback
from io import StringIO

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pymysql

pymysql.install_as_MySQLdb()

PORT, PASSWORD = int(sys.argv[1]), sys.argv[2]
DB = "django_shop"

admin = pymysql.connect(host="127.0.0.1", port=PORT, user="root", password=PASSWORD)
admin.cursor().execute(f"DROP DATABASE IF EXISTS {DB}")
admin.cursor().execute(f"CREATE DATABASE {DB}")
admin.close()

from django.conf import settings

settings.configure(
    DEBUG=False,
    USE_TZ=True,
    # Not UTC: date lookups then convert with CONVERT_TZ(col, 'UTC', zone).
    TIME_ZONE="Europe/Paris",
    SECRET_KEY="quire-orm-test",
    ROOT_URLCONF="shop.urls",
    STATIC_URL="/static/",
    ALLOWED_HOSTS=["testserver"],
    # What the admin app asks of a project (its system checks).
    TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
                "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                   "django.contrib.auth.context_processors.auth",
                                                   "django.contrib.messages.context_processors.messages"]}}],
    MIDDLEWARE=["django.contrib.sessions.middleware.SessionMiddleware",
                "django.contrib.auth.middleware.AuthenticationMiddleware",
                "django.contrib.messages.middleware.MessageMiddleware"],
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    INSTALLED_APPS=[
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "django.contrib.sessions",
        "django.contrib.admin",
        "django.contrib.messages",
        "django.contrib.staticfiles",
        "shop",
    ],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.mysql",
            "HOST": "127.0.0.1",
            "PORT": PORT,
            "USER": "root",
            "PASSWORD": PASSWORD,
            "NAME": DB,
            "OPTIONS": {"charset": "utf8mb4"},
        }
    },
)

import django

django.setup()

from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import (Avg, Case, CharField, Count, Exists, F, OuterRef, Q, Subquery, Sum, Value, When,
                              Window)
from django.db.models.functions import Cast, Coalesce, Concat, Lower, RowNumber, TruncYear

last_sql = []


def remember_sql(execute, sql, params, many, context):
    last_sql[:] = [sql, params]
    return execute(sql, params, many, context)


def check(name, got, want):
    if got != want:
        raise AssertionError(f"{name}: got {got!r}, want {want!r}")
    print(f"ok {name}")


def tables():
    with connection.cursor() as c:
        return sorted(connection.introspection.table_names(c))


def migrations_and_schema():
    # Django's checks of the server (MySQL's strict mode, mysql.W002) and
    # of the models against it (field types, index and constraint support).
    call_command("check", "shop", databases=["default"], fail_level="WARNING")
    call_command("migrate", verbosity=0)
    out = StringIO()
    # The models match the migrations: nothing left to generate.
    call_command("makemigrations", "shop", "--check", "--dry-run", stdout=out)
    check("every migration applied", sorted(t for t in tables() if t.startswith("shop_")),
          ["shop_author", "shop_book", "shop_book_tags", "shop_tag"])
    with connection.cursor() as c:
        cols = {ci.name: ci for ci in connection.introspection.get_table_description(c, "shop_book")}
        check("AddField and RemoveField", ("subtitle" in cols, "isbn" in cols), (True, False))
        check("AlterField widened title", cols["title"].internal_size, 250)
        acols = [ci.name for ci in connection.introspection.get_table_description(c, "shop_author")]
        check("RenameField", ("biography" in acols, "bio" in acols), (True, False))
        cons = connection.introspection.get_constraints(c, "shop_author")
        check("AddIndex", cons.get("author_born_name_idx", {}).get("columns"), ["born", "name"])
        bcons = connection.introspection.get_constraints(c, "shop_book")
        check("CheckConstraint", bcons.get("book_pages_positive", {}).get("check"), True)
        check("UniqueConstraint", bcons.get("book_title_published_uniq", {}).get("columns"), ["title", "published"])
        fks = sorted(v["foreign_key"] for v in bcons.values() if v["foreign_key"])
        check("foreign keys", fks, [("shop_author", "id"), ("shop_author", "id")])


def crud():
    from django.contrib.auth.models import User
    from django.contrib.sessions.models import Session
    from django.db import IntegrityError
    from shop.models import Author, Book, Tag

    User.objects.create_superuser("admin", "a@example.com", "pw")
    check("contrib auth user", User.objects.get(username="admin").check_password("pw"), True)

    ann = Author.objects.create(name="Ann Leckie", born=datetime.date(1966, 3, 2), biography="SF")
    bob = Author.objects.create(name="Bob Shaw", born=None)
    cy = Author.objects.create(name="Cy Twombly", active=False)
    check("BigAutoField ids", [a.id for a in (ann, bob, cy)], [ann.id, ann.id + 1, ann.id + 2])
    Tag.objects.bulk_create([Tag(name="sf"), Tag(name="fantasy"), Tag(name="poetry")])
    # MySQL returns no ids from a multi-row INSERT: Django leaves them unset.
    sf, fantasy = Tag.objects.get(name="sf"), Tag.objects.get(name="fantasy")
    utc = datetime.timezone.utc
    Book.objects.bulk_create([
        Book(title="Ancillary Justice", author=ann, editor=bob, pages=386, price=decimal.Decimal("15.99"),
             rating=4.5, published=datetime.datetime(2013, 10, 1, 12, 0, tzinfo=utc), meta={"awards": ["Hugo", "Nebula"]}),
        Book(title="Ancillary Sword", author=ann, editor=bob, pages=356, price=decimal.Decimal("14.50"),
             rating=4.0, published=datetime.datetime(2014, 10, 7, 23, 30, tzinfo=utc), meta={"awards": []}),
        Book(title="Orbitsville", author=bob, editor=None, pages=200, price=decimal.Decimal("7.25"),
             rating=None, published=datetime.datetime(1975, 1, 1, 0, 0, tzinfo=utc)),
    ])
    aj = Book.objects.get(title="Ancillary Justice")
    check("UUIDField round trip", Book.objects.get(uuid=aj.uuid).id, aj.id)
    check("DecimalField", aj.price, decimal.Decimal("15.99"))
    check("JSONField", aj.meta, {"awards": ["Hugo", "Nebula"]})
    check("JSONField key lookup", list(Book.objects.filter(meta__awards__contains="Hugo").values_list("title", flat=True)),
          ["Ancillary Justice"])
    check("JSONField has_key", Book.objects.filter(meta__has_key="awards").count(), 2)
    aj.tags.add(sf)
    Book.objects.get(title="Ancillary Sword").tags.add(sf, fantasy)
    check("ManyToMany", sorted(t.name for t in Book.objects.get(title="Ancillary Sword").tags.all()), ["fantasy", "sf"])

    try:
        with transaction.atomic():
            Book.objects.create(title="Bad", author=ann, pages=0, price=1, published=aj.published)
        raise AssertionError("CheckConstraint did not refuse pages=0")
    except IntegrityError:
        print("ok CheckConstraint refuses")
    try:
        with transaction.atomic():
            Book.objects.create(title="Ancillary Justice", author=ann, pages=1, price=1,
                                published=datetime.datetime(2020, 1, 1, tzinfo=utc))
        raise AssertionError("unique_together did not refuse a duplicate")
    except IntegrityError:
        print("ok unique_together refuses")

    q = Book.objects.order_by("title")
    check("icontains", list(q.filter(title__icontains="ANCILLARY").values_list("title", flat=True)),
          ["Ancillary Justice", "Ancillary Sword"])
    check("in", q.filter(pages__in=[200, 356]).count(), 2)
    check("range", list(q.filter(price__range=(7, 15)).values_list("title", flat=True)), ["Ancillary Sword", "Orbitsville"])
    check("isnull", list(q.filter(editor__isnull=True).values_list("title", flat=True)), ["Orbitsville"])
    check("year lookup", list(q.filter(published__year=2014).values_list("title", flat=True)), ["Ancillary Sword"])
    # 2014-10-07 23:30 UTC is the 8th in Paris.
    check("day lookup in the current time zone", q.filter(published__day=8).count(), 1)
    check("date lookup", q.filter(published__date=datetime.date(2014, 10, 8)).count(), 1)
    check("date range", q.filter(published__date__gte=datetime.date(2013, 1, 1)).count(), 2)
    check("DateField lookup", list(Author.objects.filter(born__month=3).values_list("name", flat=True)), ["Ann Leckie"])
    check("BooleanField", list(Author.objects.filter(active=False).values_list("name", flat=True)), ["Cy Twombly"])

    rows = list(Book.objects.select_related("author", "editor").order_by("-pages"))
    check("select_related", [(b.title, b.author.name, b.editor and b.editor.name) for b in rows],
          [("Ancillary Justice", "Ann Leckie", "Bob Shaw"), ("Ancillary Sword", "Ann Leckie", "Bob Shaw"),
           ("Orbitsville", "Bob Shaw", None)])
    authors = Author.objects.prefetch_related("books__tags").order_by("name")
    check("prefetch_related", [(a.name, sorted(t.name for b in a.books.all() for t in b.tags.all())) for a in authors],
          [("Ann Leckie", ["fantasy", "sf", "sf"]), ("Bob Shaw", []), ("Cy Twombly", [])])

    counted = Author.objects.annotate(n=Count("books"), total=Sum("books__pages")).order_by("name")
    check("annotate Count/Sum", [(a.name, a.n, a.total) for a in counted],
          [("Ann Leckie", 2, 742), ("Bob Shaw", 1, 200), ("Cy Twombly", 0, None)])
    agg = Book.objects.aggregate(avg=Avg("pages"), n=Count("id"), price=Sum("price"))
    check("aggregate", (round(agg["avg"], 2), agg["n"], agg["price"]), (314.0, 3, decimal.Decimal("37.74")))
    check("values + annotate (GROUP BY)",
          list(Book.objects.values("author__name").annotate(n=Count("id")).order_by("author__name")),
          [{"author__name": "Ann Leckie", "n": 2}, {"author__name": "Bob Shaw", "n": 1}])
    check("annotate filter (HAVING)", list(Author.objects.annotate(n=Count("books")).filter(n__gte=2).values_list("name", flat=True)),
          ["Ann Leckie"])
    check("slicing (LIMIT/OFFSET)", list(q.values_list("title", flat=True)[1:3]), ["Ancillary Sword", "Orbitsville"])
    check("first/last", (q.first().title, q.last().title), ("Ancillary Justice", "Orbitsville"))

    check("F() update", Book.objects.filter(author=ann).update(pages=F("pages") + 10), 2)
    check("F() read back", sorted(Book.objects.filter(author=ann).values_list("pages", flat=True)), [366, 396])
    check("F() comparison", q.filter(pages__gt=F("price") * 20).count(), 3)
    check("Q objects", list(q.filter(Q(rating__gte=4.5) | Q(editor__isnull=True), ~Q(pages=1)).values_list("title", flat=True)),
          ["Ancillary Justice", "Orbitsville"])
    check("Exists(OuterRef)", list(Author.objects.filter(Exists(Book.objects.filter(author=OuterRef("pk"), tags__name="fantasy")))
                                   .values_list("name", flat=True)), ["Ann Leckie"])
    check("Exists on m2m", sorted(Tag.objects.filter(Exists(Book.objects.filter(tags=OuterRef("pk")))).values_list("name", flat=True)),
          ["fantasy", "sf"])
    check("Subquery in annotate", list(Author.objects.annotate(
        top=Subquery(
            Book.objects.filter(author=OuterRef("pk")).order_by("-pages").values("title")[:1])).order_by("name").values_list("top", flat=True)),
        ["Ancillary Justice", "Orbitsville", None])

    try:
        with transaction.atomic():
            Author.objects.filter(pk=bob.pk).update(name="Robert Shaw")
            Tag.objects.create(name="horror")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    check("atomic rollback", (Author.objects.get(pk=bob.pk).name, Tag.objects.filter(name="horror").exists()),
          ("Bob Shaw", False))
    with transaction.atomic():
        Tag.objects.create(name="kept")
        try:
            with transaction.atomic():  # a savepoint
                Tag.objects.create(name="dropped")
                raise RuntimeError("roll back to the savepoint")
        except RuntimeError:
            pass
    check("savepoint rollback", sorted(Tag.objects.filter(name__in=["kept", "dropped"]).values_list("name", flat=True)), ["kept"])
    with transaction.atomic():
        locked = list(Book.objects.select_for_update().filter(author=ann).order_by("id"))
        Book.objects.filter(pk=locked[0].pk).update(rating=5.0)
    check("select_for_update", Book.objects.get(pk=locked[0].pk).rating, 5.0)
    with transaction.atomic():
        check("select_for_update(nowait=True)", len(list(Book.objects.select_for_update(nowait=True).filter(author=bob))), 1)

    check("Case/When", list(q.annotate(size=Case(When(pages__gte=300, then=Value("long")), default=Value("short")))
                            .values_list("size", flat=True)), ["long", "long", "short"])
    check("functions", list(Author.objects.annotate(n=Concat(Lower("name"), Value("/"), Cast("id", CharField())))
                            .filter(name="Ann Leckie").values_list("n", flat=True)), [f"ann leckie/{ann.id}"])
    check("Coalesce", list(q.annotate(r=Coalesce("rating", 0.0)).values_list("r", flat=True)), [5.0, 4.0, 0.0])
    check("Window RowNumber", list(q.annotate(rn=Window(RowNumber(), partition_by=[F("author")], order_by=F("pages").desc()))
                                   .values_list("title", "rn")),
          [("Ancillary Justice", 1), ("Ancillary Sword", 2), ("Orbitsville", 1)])
    check("TruncYear + distinct", list(Book.objects.annotate(y=TruncYear("published")).values_list("y", flat=True)
                                       .distinct().order_by("y"))[0].year, 1975)
    check("dates()", [d.year for d in Book.objects.dates("published", "year")], [1975, 2013, 2014])
    check("union", sorted(Author.objects.filter(name="Bob Shaw").values_list("name", flat=True)
                          .union(Tag.objects.filter(name="sf").values_list("name", flat=True))), ["Bob Shaw", "sf"])
    sword = Book.objects.get(title="Ancillary Sword")
    sword.pages, sword.rating = 357, 4.1
    check("bulk_update", Book.objects.bulk_update([sword], ["pages", "rating"]), 1)
    check("bulk_update read back", Book.objects.filter(pk=sword.pk).values_list("pages", "rating")[0], (357, 4.1))
    check("in_bulk", sorted(Book.objects.in_bulk([sword.pk, aj.pk])), sorted([sword.pk, aj.pk]))
    check("iterator", sum(1 for _ in Book.objects.iterator(chunk_size=1)), 3)
    check("JSONField index lookup", Book.objects.filter(meta__awards__1="Nebula").count(), 1)
    # The admin site: a session stored in django_session, its change lists
    # (search, filters, date hierarchy, counts) and change form.
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username="admin"))
    page = client.get("/admin/shop/book/", {"q": "ancillary", "published__year": "2014"})
    check("admin change list", (page.status_code, b"Ancillary Sword" in page.content, b"Orbitsville" in page.content),
          (200, True, False))
    page = client.get(f"/admin/shop/author/{ann.pk}/change/")
    check("admin change form", (page.status_code, b"Ann Leckie" in page.content), (200, True))
    check("admin session stored", Session.objects.count(), 1)
    check("get_or_create", Tag.objects.get_or_create(name="sf")[1], False)
    obj, created = Author.objects.update_or_create(name="Dee", defaults={"biography": "new"})
    check("update_or_create", (created, Author.objects.get(name="Dee").biography), (True, "new"))

    # ann's books are deleted with her (CASCADE), bob's books lose their editor (SET_NULL).
    deleted, per_model = ann.delete()
    check("delete cascades", per_model, {"shop.Book_tags": 3, "shop.Book": 2, "shop.Author": 1})
    bob.delete()
    check("delete everything", (Book.objects.count(), Author.objects.count()), (0, 2))
    a = Author.objects.create(name="Eve")
    Book.objects.create(title="T", author=cy, editor=a, pages=1, price=1, published=aj.published)
    a.delete()
    check("SET_NULL", Book.objects.get(title="T").editor_id, None)
    check("bulk delete", Book.objects.all().delete()[0], 1)


def management_commands():
    from shop.models import Tag

    Tag.objects.create(name="dumped")
    tags = sorted(Tag.objects.values_list("name", flat=True))
    out = StringIO()
    call_command("dumpdata", "shop.tag", stdout=out)
    call_command("flush", interactive=False, verbosity=0)
    check("flush empties every table", Tag.objects.count(), 0)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write(out.getvalue())
        f.flush()
        call_command("loaddata", f.name, verbosity=0)
    check("dumpdata / loaddata", sorted(Tag.objects.values_list("name", flat=True)), tags)
    out = StringIO()
    call_command("inspectdb", "shop_book", stdout=out)
    for line in ["uuid = models.CharField(unique=True, max_length=32)", "price = models.DecimalField(max_digits=8, decimal_places=2)",
                 "meta = models.JSONField()", "author = models.ForeignKey('ShopAuthor', models.DO_NOTHING)"]:
        check(f"inspectdb: {line}", line in out.getvalue(), True)


def reverse_migrations():
    for app in ["shop", "admin", "sessions", "auth", "contenttypes"]:
        call_command("migrate", app, "zero", verbosity=0)
    check("every migration reversed", tables(), ["django_migrations"])


try:
    connection.ensure_connection()
    with connection.execute_wrapper(remember_sql):
        migrations_and_schema()
        crud()
        management_commands()
        reverse_migrations()
except Exception:
    traceback.print_exc()
    print(f"last SQL: {last_sql}", file=sys.stderr)
    sys.exit(1)
print("django: all checks passed")
