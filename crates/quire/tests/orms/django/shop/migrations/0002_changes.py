"""One migration of each kind of change: AddField, AlterField, RenameField,
RemoveField, AddIndex (each reversible)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]

    operations = [
        migrations.AddField(model_name="book", name="subtitle", field=models.CharField(default="", max_length=100)),
        migrations.AlterField(model_name="book", name="title", field=models.CharField(max_length=250)),
        migrations.RenameField(model_name="author", old_name="bio", new_name="biography"),
        migrations.AlterField(model_name="author", name="biography", field=models.TextField(blank=True, default="")),
        migrations.RemoveField(model_name="book", name="isbn"),
        migrations.AddIndex(model_name="author", index=models.Index(fields=["born", "name"], name="author_born_name_idx")),
    ]
