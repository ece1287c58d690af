"""Players who are remembered and their ratings (issue 32; kemps.server.players, kemps.server.ratings).

``players``: a browser's private key kept only as its hash, with the public player id and the
name bound to it. ``ratings``: OpenSkill's mu and sigma of each rated player id, pair and bot.
``rated_matches``: each finished match rated (or passed over), once: its row is written in the
same transaction as the ratings it changed. ``match_players``: each rated seat of a match (the
player page's matches and partners).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(40), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("subject", sa.String(90), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(90), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False, index=True),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "rated_matches",
        sa.Column("match_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("rated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "match_players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.Integer, nullable=False, index=True),
        sa.Column("player", sa.String(40), nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("pair", sa.Integer, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("partner", sa.String(40), nullable=False),
        sa.Column("partner_name", sa.String(40), nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("ordinal_before", sa.Float, nullable=False),
        sa.Column("ordinal_after", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.UniqueConstraint("match_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("match_players")
    op.drop_table("rated_matches")
    op.drop_table("ratings")
    op.drop_table("players")
