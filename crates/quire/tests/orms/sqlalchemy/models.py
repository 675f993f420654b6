"""The shop schema as SQLAlchemy declarative models: version 1 is what
create_all makes; version 2 adds a column, an index and a table and
widens a column, the changes Alembic's autogenerate must find."""
import datetime
import decimal
import enum
from typing import Optional

from sqlalchemy import (JSON, Boolean, Date, DateTime, Enum, ForeignKey, Index, Integer, MetaData, Numeric, String,
                        Text, UniqueConstraint, func)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Status(enum.Enum):
    new = "new"
    paid = "paid"
    shipped = "shipped"


def declare(version):
    """The models of schema `version` (1 or 2), on their own MetaData."""

    class Base(DeclarativeBase):
        metadata = MetaData()

    class Customer(Base):
        __tablename__ = "customer"
        id: Mapped[int] = mapped_column(primary_key=True)
        email: Mapped[str] = mapped_column(String(120), unique=True)
        name: Mapped[str] = mapped_column(String(80 if version == 1 else 100), index=True)
        vip: Mapped[bool] = mapped_column(Boolean, default=False)
        created: Mapped[datetime.datetime] = mapped_column(DateTime, server_default=func.now())
        orders: Mapped[list["Order"]] = relationship(back_populates="customer", cascade="all, delete-orphan",
                                                     order_by="Order.id")
        if version >= 2:
            phone: Mapped[Optional[str]] = mapped_column(String(30))

    class Product(Base):
        __tablename__ = "product"
        id: Mapped[int] = mapped_column(primary_key=True)
        sku: Mapped[str] = mapped_column(String(20))
        price: Mapped[decimal.Decimal] = mapped_column(Numeric(10, 2))
        stock: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
        description: Mapped[Optional[str]] = mapped_column(Text)
        attrs: Mapped[Optional[dict]] = mapped_column(JSON)
        __table_args__ = (UniqueConstraint("sku", name="uq_product_sku"),)
        if version >= 2:
            __table_args__ += (Index("ix_product_price", "price"),)

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[int] = mapped_column(primary_key=True)
        customer_id: Mapped[int] = mapped_column(ForeignKey("customer.id", ondelete="CASCADE"))
        placed: Mapped[datetime.date] = mapped_column(Date)
        status: Mapped[Status] = mapped_column(Enum(Status), default=Status.new)
        note: Mapped[Optional[str]] = mapped_column(String(200))
        customer: Mapped[Customer] = relationship(back_populates="orders")
        lines: Mapped[list["OrderLine"]] = relationship(back_populates="order", cascade="all, delete-orphan",
                                                        order_by="OrderLine.product_id")

    class OrderLine(Base):
        __tablename__ = "order_line"
        order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"), primary_key=True)
        product_id: Mapped[int] = mapped_column(ForeignKey("product.id"), primary_key=True)
        qty: Mapped[int]
        order: Mapped[Order] = relationship(back_populates="lines")
        product: Mapped[Product] = relationship()
        __table_args__ = (Index("ix_line_product_qty", "product_id", "qty"),)

    classes = {"Base": Base, "Customer": Customer, "Product": Product, "Order": Order, "OrderLine": OrderLine}
    if version >= 2:
        class Review(Base):
            __tablename__ = "review"
            id: Mapped[int] = mapped_column(primary_key=True)
            product_id: Mapped[int] = mapped_column(ForeignKey("product.id"))
            stars: Mapped[int]
            body: Mapped[Optional[str]] = mapped_column(Text)

        classes["Review"] = Review
    return classes
