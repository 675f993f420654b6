"""The shop app's models, in their state after migration 0002."""
import uuid

from django.db import models
from django.db.models import Q


class Author(models.Model):
    id = models.BigAutoField(primary_key=True)
    name = models.CharField(max_length=100, unique=True)
    biography = models.TextField(blank=True, default="")
    born = models.DateField(null=True)
    active = models.BooleanField(default=True)

    class Meta:
        indexes = [models.Index(fields=["born", "name"], name="author_born_name_idx")]


class Tag(models.Model):
    name = models.CharField(max_length=30, unique=True)


class Book(models.Model):
    uuid = models.UUIDField(default=uuid.uuid4, unique=True)
    title = models.CharField(max_length=250)
    subtitle = models.CharField(max_length=100, default="")
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    editor = models.ForeignKey(Author, on_delete=models.SET_NULL, null=True, related_name="edited")
    pages = models.IntegerField()
    price = models.DecimalField(max_digits=8, decimal_places=2)
    rating = models.FloatField(null=True)
    published = models.DateTimeField()
    meta = models.JSONField(default=dict)
    tags = models.ManyToManyField(Tag, related_name="books")

    class Meta:
        unique_together = [("author", "title")]
        constraints = [
            models.CheckConstraint(condition=Q(pages__gt=0), name="book_pages_positive"),
            models.UniqueConstraint(fields=["title", "published"], name="book_title_published_uniq"),
        ]
        indexes = [models.Index(fields=["published"], name="book_published_idx")]
