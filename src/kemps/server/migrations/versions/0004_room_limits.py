"""Room limits: whether a room's host lets spectators watch, and when an idle room was archived
(kept, never restored).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("spectators", sa.Boolean, nullable=False,
                                     server_default=sa.true()))
    op.add_column("rooms", sa.Column("archived_at", sa.Float, nullable=True))
    op.create_index("ix_rooms_archived_at", "rooms", ["archived_at"])


def downgrade() -> None:
    op.drop_index("ix_rooms_archived_at", "rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("archived_at")
        batch.drop_column("spectators")
