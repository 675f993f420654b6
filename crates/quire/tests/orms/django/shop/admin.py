from django.contrib import admin

from .models import Author, Book


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "pages", "price", "published"]
    list_filter = ["author", "published"]
    search_fields = ["title", "author__name"]
    date_hierarchy = "published"


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ["name", "born", "active"]
