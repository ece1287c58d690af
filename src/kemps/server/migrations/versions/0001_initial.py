"""Rooms, record entries and finished matches.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("host_seat", sa.Integer, nullable=False),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("first_dealer", sa.Integer, nullable=False),
        sa.Column("epoch", sa.Float, nullable=False),
    )
    op.create_table(
        "entries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_code", sa.String(16), nullable=False, index=True),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("t", sa.Float, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("payload", sa.JSON, nullable=True),
        sa.UniqueConstraint("room_code", "match_no", "seq"),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_code", sa.String(16), nullable=False, index=True),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("names", sa.JSON, nullable=False),
        sa.Column("summary", sa.JSON, nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("matches")
    op.drop_table("entries")
    op.drop_table("rooms")
