"""Fixtures for the dashboard: an app on a temporary SQLite file, the laptop (host) and phones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import tests.scorer.toygame  # noqa: F401  (registers the toy game "tally")
from web.app import create_app, store

PHONE_ADDRESS = "192.168.1.50"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "tablecall.sqlite3"), "HEARTBEAT_S": 0.05, "STREAM_MAX_S": 0.4}
    )
    yield app
    store(app).close()


@pytest.fixture
def host(app: Flask) -> FlaskClient:
    """The laptop: a browser on loopback."""
    return app.test_client()


def phone(app: Flask, token: str | None = None) -> FlaskClient:
    """A phone on the Wi-Fi; with ``token`` it has followed that join link."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = PHONE_ADDRESS
    return client if token is None else with_token(client, token)


def with_token(client: FlaskClient, token: str) -> FlaskClient:
    client.environ_base["HTTP_X_JOIN_TOKEN"] = token
    return client


@pytest.fixture
def guest(app: Flask) -> FlaskClient:
    """A phone that has no token."""
    return phone(app)


def new_game(
    client: FlaskClient, game: str = "tally", players: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    body = {"game": game, "players": players or ["Ann", "Bo"], **extra}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.get_json()
    result: dict[str, Any] = response.get_json()
    return result


@pytest.fixture
def tally(app: Flask, host: FlaskClient) -> dict[str, Any]:
    """A tally game (Ann, Bo; target 10) with its tokens."""
    created = new_game(host)
    record = store(app).game(created["id"])
    assert record is not None
    return {"id": record.id, "player_token": record.player_token, "viewer_token": record.viewer_token}


def post_event(client: FlaskClient, game_id: str, **body: Any) -> Any:
    return client.post(f"/api/games/{game_id}/events", json=body)
