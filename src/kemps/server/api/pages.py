"""The page's HTML routes (not in the API's schema): the table page, a room's link, the finished
matches page and how to play."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse

from kemps.server.api import StrictJSONRoute
from kemps.server.api.common import STATIC

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/room/{code}", include_in_schema=False)
async def room_page(code: str) -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/history", include_in_schema=False)
async def history_page() -> FileResponse:
    return FileResponse(STATIC / "history.html")


@router.get("/how-to-play", include_in_schema=False)
async def how_to_play_page() -> FileResponse:
    return FileResponse(STATIC / "how-to-play.html")
