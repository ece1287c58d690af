"""Bots: programs that play a seat through exactly the interface people use (views and events)."""

from kemps.bots.base import Bot, Plan
from kemps.bots.simple import SimpleBot

__all__ = ["Bot", "Plan", "SimpleBot"]
