"""Fencing tokens: the ownership number of the node that may write a room (many nodes).

Each room row keeps the highest fencing token any node has claimed it with; a node writes a
room's rows only while its own token is at least that (kemps.server.storage.Storage.write_batch),
so a node that lost its lease can never write again. A single node never claims one (0).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("fence", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("fence")
