"""What a restart needs to be exact: the table clock where it last stood, the next deal time and
the last finished match of each room.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("table_time", sa.Float, nullable=True))
    op.add_column("rooms", sa.Column("deal_at", sa.Float, nullable=True))
    op.add_column("rooms", sa.Column("last_match_id", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("last_match_id")
        batch.drop_column("deal_at")
        batch.drop_column("table_time")
