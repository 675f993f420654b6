import uuid

from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    initial = True
    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Author",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("name", models.CharField(max_length=100, unique=True)),
                ("bio", models.TextField(blank=True)),
                ("born", models.DateField(null=True)),
                ("active", models.BooleanField(default=True)),
            ],
        ),
        migrations.CreateModel(
            name="Tag",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=30, unique=True)),
            ],
        ),
        migrations.CreateModel(
            name="Book",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("uuid", models.UUIDField(default=uuid.uuid4, unique=True)),
                ("title", models.CharField(max_length=200)),
                ("isbn", models.CharField(max_length=13, null=True)),
                ("pages", models.IntegerField()),
                ("price", models.DecimalField(decimal_places=2, max_digits=8)),
                ("rating", models.FloatField(null=True)),
                ("published", models.DateTimeField()),
                ("meta", models.JSONField(default=dict)),
                ("author", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="books", to="shop.author")),
                ("editor", models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="edited", to="shop.author")),
                ("tags", models.ManyToManyField(related_name="books", to="shop.tag")),
            ],
            options={
                "unique_together": {("author", "title")},
                "indexes": [models.Index(fields=["published"], name="book_published_idx")],
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("pages__gt", 0)), name="book_pages_positive"),
                    models.UniqueConstraint(fields=("title", "published"), name="book_title_published_uniq"),
                ],
            },
        ),
    ]
