"""The scorekeeper's scoresheets, the tournament desk's tournaments, and the rooms that play
tournament matches online.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "desk_tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("state", sa.JSON, nullable=False),
    )
    op.create_table(
        "desk_scoresheets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("title", sa.String(200), nullable=True),
        sa.Column("sheet", sa.JSON, nullable=False),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("desk_tournaments.id"),
                  nullable=True, index=True),
        sa.Column("match_id", sa.String(8), nullable=True),
    )
    op.create_table(
        "desk_tournament_rooms",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("desk_tournaments.id"),
                  nullable=False, index=True),
        sa.Column("match_id", sa.String(8), nullable=False),
        sa.Column("room_code", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("outcome", sa.JSON, nullable=True),
        sa.UniqueConstraint("room_code"),
    )


def downgrade() -> None:
    op.drop_table("desk_tournament_rooms")
    op.drop_table("desk_scoresheets")
    op.drop_table("desk_tournaments")
