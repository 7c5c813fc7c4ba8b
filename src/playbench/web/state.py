"""What the routers share, kept on `app.state` by `create_app` and handed to routes as dependencies."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from playbench.web.library import RunLibrary
from playbench.web.play import PlayManager, TaskInfo
from playbench.web.plot_cache import PlotCache


# async: FastAPI runs a plain `def` dependency in its thread pool, a hop these lookups do not need
async def _library(request: Request) -> RunLibrary:
    return request.app.state.library


async def _manager(request: Request) -> PlayManager:
    return request.app.state.manager


async def _plots(request: Request) -> PlotCache:
    return request.app.state.plots


async def _task_infos(request: Request) -> dict[str, TaskInfo]:
    return request.app.state.task_infos


async def _static_files(request: Request) -> dict[str, str]:
    return request.app.state.static_files


Library = Annotated[RunLibrary, Depends(_library)]
Manager = Annotated[PlayManager, Depends(_manager)]
Plots = Annotated[PlotCache, Depends(_plots)]
TaskInfos = Annotated[dict[str, TaskInfo], Depends(_task_infos)]
StaticFiles = Annotated[dict[str, str], Depends(_static_files)]

__all__ = ["Library", "Manager", "Plots", "StaticFiles", "TaskInfos"]
