"""Signal reveals: a pair of a finished match that withholds its signal agreements from the
replay (kept for a rematch), or lets them be shown again.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signal_reveals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_code", sa.String(16), nullable=False),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("pair", sa.Integer, nullable=False),
        sa.Column("reveal", sa.Boolean, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.UniqueConstraint("room_code", "match_no", "pair"),
    )


def downgrade() -> None:
    op.drop_table("signal_reveals")
