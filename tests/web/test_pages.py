"""The HTML screens: who may open which, the join link and its cookie, the QR code, and that names
are escaped everywhere."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from scorer.events import parse_event
from tests.web.conftest import new_game, phone, post_event
from web.app import hub, store
from web.pages import modules, standing
from web.qr import qr_svg, qr_text

EVIL = '<script>alert("x")</script>&"B\'s'


def boot_of(html: str) -> Any:
    match = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S)
    assert match, "the page has no boot data"
    return json.loads(match.group(1))


def test_home_for_the_host_lists_every_game(host: FlaskClient, tally: dict[str, Any]) -> None:
    html = host.get("/").get_data(as_text=True)
    assert 'id="new-game"' in html and 'id="import-log"' in html
    assert f"/g/{tally['id']}" in html
    assert "tablecall serve --lan" in html  # phones cannot join yet: say how


def test_home_shows_the_lan_addresses(app: Flask, host: FlaskClient) -> None:
    app.config["PUBLIC_URLS"] = ["http://192.168.1.10:8000"]
    assert "http://192.168.1.10:8000" in host.get("/").get_data(as_text=True)


def test_home_for_a_phone_shows_only_its_games(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    other = new_game(host)
    html = phone(app, tally["player_token"]).get("/").get_data(as_text=True)
    assert f"/g/{tally['id']}" in html and f"/g/{other['id']}" not in html
    assert 'id="new-game"' not in html
    assert "Scan the QR code" in phone(app).get("/").get_data(as_text=True)


def test_home_folds_earlier_demo_rounds_away(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    """An evening of ``serve --demo`` starts a round a minute: only the latest is listed among the games."""
    rounds = [hub(app).create("tally", ["Ann", "Bo"], {}, title=f"Demo, round {n}", origin="demo") for n in (1, 2, 3)]
    time.sleep(0.005)  # activity is ordered by the millisecond: an event in round 3's millisecond would tie with it
    response = post_event(host, rounds[1].record.id, type="add", player="Ann", points=1)
    assert response.status_code == 201  # round 2 is now the most recently active
    html = host.get("/").get_data(as_text=True)
    listed, folded = html.split('id="old-demos"')
    assert f"/g/{tally['id']}" in listed and f"/g/{rounds[1].record.id}" in listed
    assert f"/g/{rounds[0].record.id}" in folded and f"/g/{rounds[2].record.id}" in folded
    assert "2 earlier demo rounds" in folded
    hub(app).create("tally", ["Ann", "Bo"], {}, title="no demo")
    assert "old-demos" not in phone(app, tally["player_token"]).get("/").get_data(as_text=True)


def test_new_game_page_carries_the_specs(host: FlaskClient, guest: FlaskClient) -> None:
    response = host.get("/new?game=spades")
    boot = boot_of(response.get_data(as_text=True))
    assert boot["chosen"] == "spades"
    assert "spades" in [g["name"] for g in boot["games"]]
    assert guest.get("/new").status_code == 403
    assert guest.get("/import").status_code == 403
    assert host.get("/import").status_code == 200


def test_play_again_starts_the_new_game_form_from_a_finished_one(host: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    html = host.get(f"/g/{gid}").get_data(as_text=True)
    assert f'href="/new?again={gid}"' in html and 'id="again-box" hidden' in html  # not over yet: hidden
    for player, points in (("Ann", 6), ("Bo", 2), ("Ann", 5)):  # the tally's target is 10: Ann wins
        assert post_event(host, gid, type="add", player=player, points=points).status_code == 201
    assert 'id="again-box" hidden' not in host.get(f"/g/{gid}").get_data(as_text=True)
    boot = boot_of(host.get(f"/new?again={gid}").get_data(as_text=True))
    assert (boot["chosen"], boot["players"], boot["options"]) == ("tally", ["Ann", "Bo"], {"target": 10})
    unknown = boot_of(host.get("/new?again=nope").get_data(as_text=True))  # a blank form, and why
    assert "players" not in unknown and unknown["problem"].startswith("The game to play again is not on this server")
    assert "problem" not in boot_of(host.get("/new").get_data(as_text=True))


@pytest.mark.parametrize("grace", [0, 400, 1500])
def test_play_again_keeps_every_house_rule_as_played_even_one_a_new_game_starts_otherwise(
    host: FlaskClient, grace: int
) -> None:
    """A stored game keeps only the rules that differ from their default; Snap's call grace is 0 by default (how
    old logs were played) but a new game starts at 1500: the rematch of a game played with 0 came back at 1500
    (lifecycle audit, session 36)."""
    gid = new_game(host, "snap", ["Ann", "Bo"], options={"call_grace_ms": grace, "match": "colour"})["id"]
    boot = boot_of(host.get(f"/new?again={gid}").get_data(as_text=True))
    assert boot["options"]["call_grace_ms"] == grace and boot["options"]["match"] == "colour"


def test_table_page_by_role(app: Flask, host: FlaskClient, guest: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    host_html = host.get(f"/g/{gid}").get_data(as_text=True)
    assert boot_of(host_html)["role"] == "host"
    assert 'id="tab-share"' in host_html and 'id="tab-enter"' in host_html
    assert boot_of(host_html)["share"]["player"][0].endswith(tally["player_token"])
    player_html = phone(app, tally["player_token"]).get(f"/g/{gid}").get_data(as_text=True)
    assert 'id="tab-enter"' in player_html and 'id="tab-share"' not in player_html
    assert tally["player_token"] not in player_html.replace(f"/g/{gid}", "")  # no link to hand on
    viewer_html = phone(app, tally["viewer_token"]).get(f"/g/{gid}").get_data(as_text=True)
    assert 'id="tab-enter"' not in viewer_html and boot_of(viewer_html)["share"] is None
    refused = guest.get(f"/g/{gid}")
    assert refused.status_code == 403
    assert "scan the QR code" in refused.get_data(as_text=True)
    assert host.get("/g/nothing").status_code == 404


def test_join_link_sets_a_cookie_and_hides_the_token(app: Flask, tally: dict[str, Any]) -> None:
    client = phone(app)
    response = client.get(f"/join/{tally['id']}?t={tally['player_token']}")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/g/{tally['id']}?joined=1"  # the screen drops the ?joined=1
    cookie = response.headers["Set-Cookie"]
    assert f"tc_{tally['id']}={tally['player_token']}" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert client.get(f"/g/{tally['id']}?joined=1").status_code == 200  # the cookie now opens it
    assert post_event(client, tally["id"], type="add", player="Ann", points=1).status_code == 201


def test_each_load_of_a_game_renews_its_join_cookie(app: Flask, tally: dict[str, Any]) -> None:
    """The cookie ran out 30 days after the scan however often the phone played: a game taken up again on the sixth
    Friday asked for its join link (weeks audit, session 47). A load with a valid cookie keeps it 30 days more; one
    without (a token sent as a header, another game's, a wrong one) sets none."""
    client = phone(app)
    assert client.get(f"/join/{tally['id']}?t={tally['viewer_token']}").status_code == 303
    later = client.get(f"/g/{tally['id']}")
    assert later.status_code == 200
    cookie = later.headers["Set-Cookie"]
    assert f"tc_{tally['id']}={tally['viewer_token']}" in cookie and "Max-Age=2592000" in cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Set-Cookie" not in phone(app, tally["player_token"]).get(f"/g/{tally['id']}").headers  # a header's token
    wrong = phone(app)
    wrong.set_cookie(f"tc_{tally['id']}", "wrong")
    assert wrong.get(f"/g/{tally['id']}").status_code == 403


def test_a_join_whose_cookie_the_browser_refused_says_so(app: Flask, tally: dict[str, Any]) -> None:
    """Cookies blocked (Safari's "Block All Cookies", some private windows): the player who had just scanned the
    QR code was told to scan the QR code."""
    client = phone(app)
    assert client.get(f"/join/{tally['id']}?t={tally['player_token']}").status_code == 303
    client.delete_cookie(f"tc_{tally['id']}")  # the browser did not keep it
    refused = client.get(f"/g/{tally['id']}?joined=1")
    assert refused.status_code == 403 and "join cookie (cookies are blocked" in refused.get_data(as_text=True)
    assert "scan the QR code on the host" in client.get(f"/g/{tally['id']}").get_data(as_text=True)  # no link used


@pytest.mark.parametrize("token", ["", "wrong", "x" * 200], ids=["empty", "wrong", "long"])
def test_a_bad_join_link_is_refused(app: Flask, tally: dict[str, Any], token: str) -> None:
    response = phone(app).get(f"/join/{tally['id']}?t={token}")
    assert response.status_code == 403
    assert "Set-Cookie" not in response.headers
    assert "not valid for this game" in response.get_data(as_text=True)


def test_host_login_by_key(app: Flask) -> None:
    client = phone(app)
    assert client.get("/host").status_code == 400
    assert client.get("/host?k=nope").status_code == 403
    response = client.get(f"/host?k={store(app).host_key}")
    assert response.status_code == 303
    assert client.get("/new").status_code == 200


def test_qr_code_holds_the_player_join_link(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    app.config["PUBLIC_URLS"] = ["http://192.168.1.10:8000", "http://10.0.0.7:8000"]
    link = f"http://10.0.0.7:8000/join/{tally['id']}?t={tally['player_token']}"
    response = host.get(f"/g/{tally['id']}/qr.svg?at=1")
    assert response.mimetype == "image/svg+xml"
    svg = response.get_data(as_text=True)
    assert svg.startswith("<svg") and svg == qr_svg(link, svg.split("<title>")[1].split("</title>")[0])
    watch = host.get(f"/g/{tally['id']}/qr.svg?watch=1").get_data(as_text=True)
    assert watch != svg
    assert response.headers["Cache-Control"] == "private, no-store"  # it holds the join token: kept nowhere
    assert host.get(f"/g/{tally['id']}/qr.svg?at=2").status_code == 400  # one past the last address: was a 500
    assert host.get(f"/g/{tally['id']}/qr.svg?at=5").status_code == 400
    assert host.get(f"/g/{tally['id']}/qr.svg?at=\u00b2").status_code == 400  # a digit int() cannot read
    assert host.get(f"/g/{tally['id']}/qr.svg?at={'9' * 4301}").status_code == 400  # int() refuses: it was a 500
    assert phone(app, tally["player_token"]).get(f"/g/{tally['id']}/qr.svg").status_code == 403


def drawn(svg: str) -> tuple[list[list[int]], int]:
    """The picture segno's SVG draws, rows of a pixel per module (0 black, 255 white), and its scale: its background
    is one filled path, its dark modules a path of 1-wide strokes along ``M x y`` / ``m dx dy`` / ``h n``."""
    scale = int(re.search(r'transform="scale\((\d+)\)"', svg).group(1))  # type: ignore[union-attr]
    size = int(re.search(r'width="(\d+)"', svg).group(1)) // scale  # type: ignore[union-attr]
    light = re.search(r'<path fill="(#[0-9a-f]+)"', svg).group(1)  # type: ignore[union-attr]
    dark, path = re.search(r'stroke="(#[0-9a-f]+)" d="([^"]+)"', svg).groups()  # type: ignore[union-attr]
    ink = {"#000": 0, "#fff": 255}
    picture = [[ink[light]] * size for _ in range(size)]
    x = y = 0.0
    for command, numbers in re.findall(r"([MmHh])([-\d. ]+)", path.replace("h", " h").replace("m", " m")):
        values = [float(v) for v in numbers.split()]
        if command in "Mm":
            x, y = (values[0], values[1]) if command == "M" else (x + values[0], y + values[1])
        else:
            picture[int(y)][int(x) : int(x + values[0])] = [ink[dark]] * int(values[0])
            x += values[0]
    return picture, scale


def test_the_qr_code_a_phone_scans_leads_to_the_join_link(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    """What a phone's camera reads from the laptop's screen: the join link itself (not the game's title), dark on
    light (many phones' readers find no inverted code) with the quiet zone of four modules a reader looks for. The
    reading back needs OpenCV (the vision extras); the rest does not."""
    app.config["PUBLIC_URLS"] = ["http://192.168.1.10:8000"]
    pictures = []
    for query, token in (("", tally["player_token"]), ("?watch=1", tally["viewer_token"])):
        picture, scale = drawn(host.get(f"/g/{tally['id']}/qr.svg{query}").get_data(as_text=True))
        pixels = [p for row in picture for p in row]
        assert sum(pixels) / len(pixels) > 127  # light, with dark modules
        edge = [
            p for n, row in enumerate(picture) for m, p in enumerate(row) if min(n, m, len(row) - 1 - max(n, m)) < 4
        ]
        inside = [p for row in picture[4:-4] for p in row[4:-4]]
        assert min(edge) == 255 and min(inside) == 0  # the quiet zone, and the code within it
        pictures.append((picture, scale, f"http://192.168.1.10:8000/join/{tally['id']}?t={token}"))
    cv2 = pytest.importorskip("cv2", reason="reading the code back needs the vision extras (OpenCV)")
    import numpy as np

    for picture, scale, link in pictures:
        big = cv2.resize(np.array(picture, np.uint8), None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        read, _, _ = cv2.QRCodeDetector().detectAndDecode(big)
        assert read == link


def test_qr_text_draws_a_code_for_the_terminal() -> None:
    lines = qr_text("http://192.168.1.10:8000/join/abc?t=xyz").splitlines()
    assert len(lines) > 10 and len(set(len(line) for line in lines)) == 1
    assert set("".join(lines)) <= set(" ▀▄█")
    # a quiet zone two modules wide all round, drawn light (the terminal's text) on its dark background: a line of
    # full blocks (two module rows a line) above, below one of full or upper half blocks (an odd number of rows),
    # and two full-block columns either side
    assert set(lines[0]) == {"█"} and len(set(lines[-1])) == 1 and set(lines[-1]) <= {"█", "▀"}
    assert all(line[:2] == line[-2:] == "██" for line in lines[:-1])


def test_names_are_escaped_on_every_page(app: Flask, host: FlaskClient) -> None:
    created = new_game(host, players=[EVIL, "Bo"], title=EVIL)
    gid = created["id"]
    post_event(host, gid, type="add", player=EVIL, points=2)
    for url in ("/", f"/g/{gid}"):
        html = host.get(url).get_data(as_text=True)
        assert "<script>alert" not in html, url
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&#34;B&#39;s" in html, url
    boot = host.get(f"/g/{gid}").get_data(as_text=True)
    assert "\\u003cscript\\u003e" in boot  # tojson escapes < > & inside the JSON block
    svg = host.get(f"/g/{gid}/qr.svg").get_data(as_text=True)
    assert "<script" not in svg


def test_error_pages_escape_what_they_echo(host: FlaskClient) -> None:
    html = host.get("/g/%3Cscript%3E").get_data(as_text=True)
    assert "<script>" not in html


def test_security_headers(host: FlaskClient) -> None:
    headers = host.get("/").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_pages_are_not_kept_by_the_browser_and_static_files_are(host: FlaskClient, tally: dict[str, Any]) -> None:
    """A page holds the game as it was when it was sent: a game page brought back by Back or a restored tab came from
    the browser's cache and showed its old totals, looking live while the host's computer slept (sleep audit, s45)."""
    for path in ("/", f"/g/{tally['id']}", "/new", "/import", "/nowhere"):
        response = host.get(path)
        assert response.mimetype == "text/html" and response.headers["Cache-Control"] == "no-store", path
    response = host.get("/static/js/table.js")
    assert "no-store" not in response.headers.get("Cache-Control", "")
    response.close()


def test_large_answers_are_gzipped_for_a_browser_that_takes_it(host: FlaskClient, tally: dict[str, Any]) -> None:
    """The Log of a long game went whole and uncompressed at every reload (293 KB every 1.5 s at 1,500 events, a
    crowded Wi-Fi's 1 Mbit/s full: slow-phone audit, session 45)."""
    import gzip

    for n in range(60):
        assert post_event(host, tally["id"], type="add", player=("Ann", "Bo")[n % 2], points=1).status_code == 201
    for path in (f"/api/games/{tally['id']}/log", f"/g/{tally['id']}", "/static/js/table.js", "/static/style.css"):
        plain = host.get(path)
        zipped = host.get(path, headers={"Accept-Encoding": "gzip, deflate"})
        assert "Content-Encoding" not in plain.headers, path
        assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"], path
        body = gzip.decompress(zipped.get_data())
        assert len(zipped.get_data()) < len(body) / 2, path
        if path.startswith("/static/"):
            assert body == plain.get_data(), path
        else:  # (a page holds the time it was sent)
            assert len(body) == len(plain.get_data()) or path.startswith("/g/"), path
        plain.close(), zipped.close()
    small = host.get("/api/games", headers={"Accept-Encoding": "gzip"})  # under 2 KB: as it is
    assert "Content-Encoding" not in small.headers
    refused = host.get(f"/api/games/{tally['id']}/log", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers  # (it was taken as asking for gzip: a review)


def test_an_entry_s_answer_is_gzipped_too(host: FlaskClient, tally: dict[str, Any], monkeypatch: Any) -> None:
    """An entry's answer is a 201: the whole state to a page that says it holds nothing (an old cached page), 15 KB
    late in a Spades game, went uncompressed (leanpost, session 47). A tally's answer is small: the limit is lowered."""
    import gzip

    import web.app

    monkeypatch.setattr(web.app, "GZIP_MIN_BYTES", 256)
    body = {"type": "add", "player": "Ann", "points": 1}
    answer = host.post(f"/api/games/{tally['id']}/events", json=body, headers={"Accept-Encoding": "gzip"})
    assert answer.status_code == 201 and answer.headers.get("Content-Encoding") == "gzip"
    assert json.loads(gzip.decompress(answer.get_data()))["state"]["seq"] == 1
    plain = post_event(host, tally["id"], **body)
    assert plain.status_code == 201 and "Content-Encoding" not in plain.headers


def test_the_modules_a_page_preloads_are_its_imports_at_any_depth(tmp_path: Path) -> None:
    """Each import form the scripts use; an import-like line naming no file (in a comment) is passed over: it made
    every game page a 500 (a review, session 45)."""
    (tmp_path / "games").mkdir()
    a = "import { b } from './b.js';\nimport {\n  c,\n  d,\n} from './games/c.js';\n"
    (tmp_path / "a.js").write_text(a + "/*\nimport { x } from './gone.js';\n*/\n")
    (tmp_path / "b.js").write_text("export const b = 1;\n")
    (tmp_path / "games" / "c.js").write_text("export { e } from '../e.js';\nimport '../b.js';\nexport const c = 1;\n")
    (tmp_path / "e.js").write_text("export const e = 1;\n")
    assert modules("a.js", tmp_path) == ("a.js", "b.js", "games/c.js", "e.js")


def test_static_files_are_served_locally(host: FlaskClient) -> None:
    for path in (
        "style.css",
        "js/common.js",
        "js/table.js",
        "js/alerts.js",
        "js/new.js",
        "js/import.js",
        "js/games/index.js",
        "js/games/spades.js",
    ):
        response = host.get(f"/static/{path}")
        assert response.status_code == 200, path
        response.close()
    html = host.get("/").get_data(as_text=True) + host.get("/new").get_data(as_text=True)
    assert "http://" not in re.sub(r"<code>.*?</code>", "", html)  # no CDN: every asset is local


def test_the_table_says_which_house_rules_the_game_is_played_with(host: FlaskClient) -> None:
    """Only the API and the export carried a game's options: at the table nobody could check what the game is
    played to, or whether a rule was switched on (lifecycle audit, session 36)."""
    players = ["Alex", "Beth", "Cara", "Dan"]
    gid = new_game(host, "spades", players, options={"target": 300, "first_lead": "two_of_clubs"})["id"]
    html = host.get(f"/g/{gid}").get_data(as_text=True)
    summary = re.search(r'<details class="card rules" id="rules">\s*<summary>(.*?)</summary>', html)
    assert summary is not None and summary.group(1) == "Rules: target 300 · first lead two of clubs"
    assert "nil value: <strong>100</strong>" in html  # a rule as usual is listed too
    plain = new_game(host, "spades", players)["id"]
    assert "<summary>Rules: as usual</summary>" in host.get(f"/g/{plain}").get_data(as_text=True)
    snap = new_game(host, "snap", ["Alex", "Beth"])["id"]  # starts at its fresh call grace: nothing was chosen
    assert "<summary>Rules: as usual</summary>" in host.get(f"/g/{snap}").get_data(as_text=True)
    old_style = new_game(host, "snap", ["Alex", "Beth"], options={"call_grace_ms": 0})["id"]
    assert "<summary>Rules: call grace ms 0</summary>" in host.get(f"/g/{old_style}").get_data(as_text=True)


def test_the_game_list_says_when_each_game_was_last_played(app: Flask, host: FlaskClient) -> None:
    """Default titles repeat week after week ("Spades: Alex, Beth, Cara, Dan"): the rows could only be told apart
    by their number of events (lifecycle audit, session 36). The time is the last event's, in local time."""
    gid = new_game(host)["id"]
    friday = datetime(2026, 11, 27, 20, 14).astimezone()  # a week ago, this computer's time zone
    event = parse_event({"seq": 1, "ts": 0, "type": "add", "source": "manual", "player": "Ann", "points": 3})
    store(app).append(gid, event, int(friday.timestamp() * 1000), "host")
    html = host.get("/").get_data(as_text=True)
    assert f'<time datetime="{friday.isoformat(timespec="minutes")}">Fri 27 Nov 2026, 20:14</time>' in html


def test_the_game_list_says_which_games_are_over_who_won_and_the_score(app: Flask, host: FlaskClient) -> None:
    """After a month, 21 rows alike: none said which game was over, who won or the score, "1 events", and a game
    started two weeks before it was last played was listed by its last day only (weeks audit, session 47, F1)."""
    won, playing, _ = (new_game(host, title=t)["id"] for t in ("Won", "Playing", "Empty"))
    for player, points in (("Ann", 9), ("Bo", 3), ("Ann", 3)):
        assert post_event(host, won, type="add", player=player, points=points).status_code == 201
    assert post_event(host, playing, type="add", player="Ann", points=4).status_code == 201
    friday = datetime(2026, 11, 13, 20, 0).astimezone()
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute("UPDATE games SET created_ms = ? WHERE id = ?", (int(friday.timestamp() * 1000), playing))
    db.close()
    html = host.get("/").get_data(as_text=True)
    rows = {r.split('class="game-title">')[1].split("<")[0]: r for r in html.split("<li>")[1:]}
    assert (
        '<span class="game-state">finished · Winner: Ann · 12–3</span>' in rows["Won"] and "· 3 events ·" in rows["Won"]
    )
    assert (
        '<span class="game-state">in play · 4–0</span>' in rows["Playing"]
        and "· 1 event · started Fri 13 Nov ·" in rows["Playing"]
    )
    assert '<span class="game-state">in play · 0–0</span>' in rows["Empty"] and "· 0 events ·" in rows["Empty"]
    assert "started" not in rows["Won"]
    below = {"finished": False, "winner_text": None, "totals": {"Alex & Charlie": 130, "Beth & David": -20}}
    assert standing(below) == "in play · 130 – \N{MINUS SIGN}20"  # (Spades' missed bids: it read "130–-20")
    listed = {g["title"]: g["result"] for g in host.get("/api/games").get_json()["games"]}
    assert listed["Won"] == {
        "finished": True,
        "winner_text": "Winner: Ann",
        "totals": {"Ann": 12, "Bo": 3},
        "lower_wins": False,
    }
    assert listed["Playing"] == {
        "finished": False,
        "winner_text": None,
        "totals": {"Ann": 4, "Bo": 0},
        "lower_wins": False,
    }
    post_event(host, playing, type="add", player="Bo", points=2)  # (the list follows the game: not kept as it was)
    assert '<span class="game-state">in play · 4–2</span>' in host.get("/").get_data(as_text=True)


def test_the_game_list_gives_every_side_s_total_up_to_four_and_says_when_lower_is_better(host: FlaskClient) -> None:
    """Ten with three or four players: every player's total in seating order ("in play · 0–0–0"), as for two sides.
    A game where the lowest total wins (Spit, Push) says so in play: Spit's "in play · 0–52" read as Beth leading (the
    finished row names its winner, the Table tab's totals say "lower is better")."""
    new_game(host, "ten", ["Alex", "Beth", "Cara"], title="Ten3")
    new_game(host, "ten", ["Alex", "Beth", "Cara", "Dan"], title="Ten4")
    new_game(host, "push", ["Alex", "Beth", "Cara", "Dan"], title="Push")  # (partners: two sides)
    new_game(host, "spit", ["Alex", "Beth"], title="Spit")
    html = host.get("/").get_data(as_text=True)
    rows = {r.split('class="game-title">')[1].split("<")[0]: r for r in html.split("<li>")[1:]}
    assert '<span class="game-state">in play · 0–0–0</span>' in rows["Ten3"]
    assert '<span class="game-state">in play · 0–0–0–0</span>' in rows["Ten4"]
    assert '<span class="game-state">in play · 0–0 · lower is better</span>' in rows["Push"]
    assert '<span class="game-state">in play · 26–26 · lower is better</span>' in rows["Spit"]  # (cards left)
    five = {"finished": False, "winner_text": None, "totals": dict.fromkeys("ABCDE", 0), "lower_wins": True}
    assert standing(five) == "in play"  # (five sides: too long for a phone's row)
    halves = {"finished": True, "winner_text": "Winner: Bo", "totals": {"Ann": 2.5, "Bo": 10.0}, "lower_wins": False}
    assert standing(halves) == "finished · Winner: Bo · 2.5–10"
    spit_won = {"finished": True, "winner_text": "Winner: Alex", "totals": {"Alex": 0, "Beth": 7}, "lower_wins": True}
    assert standing(spit_won) == "finished · Winner: Alex · 0–7"  # (the winner named: no "lower is better" after it)


def test_a_game_not_loaded_is_replayed_for_the_list_only_within_its_time_and_read_at_the_start(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """A game not loaded since the start costs its replay (1,000 short games: 3-12 s): the list replays them for at most
    REPLAY_S, without keeping them loaded, and ``serve`` reads them all on a thread at the start (Hub.read_results)."""
    from web.app import create_app

    for player, points in (("Ann", 1), ("Bo", 9), ("Ann", 1), ("Bo", 1)):
        assert post_event(host, tally["id"], type="add", player=player, points=points).status_code == 201
    again = create_app({"TESTING": True, "DATABASE": str(store(app).path)})  # (a restart: nothing loaded)
    try:
        record = store(again).game(tally["id"])
        assert record is not None
        assert hub(again).result(record, 0.0) is None  # past its time: listed without it
        html = again.test_client().get("/").get_data(as_text=True)
        assert 'class="game-state">finished · Winner: Bo · 2–10<' in html  # (a short game: within REPLAY_S)
        hub(again)._results.clear()
        hub(again).read_results()
        assert tally["id"] not in hub(again)._games  # replayed for the list, not kept loaded
        assert hub(again).result(record, 0.0) == {
            "finished": True,
            "winner_text": "Winner: Bo",
            "totals": {"Ann": 2, "Bo": 10},
            "lower_wins": False,
        }
        replays = []

        def failing(record: Any) -> Any:
            replays.append(record.id)
            raise RuntimeError("a referee's bug")

        hub(again)._results.clear()
        hub(again)._replay = failing  # type: ignore[method-assign]
        assert [hub(again).result(record, float("inf")) for _ in range(3)] == [None] * 3
        assert replays == [tally["id"]]  # (not replayed, with a traceback, at every list: a review, session 47)
    finally:
        store(again).close()


def test_play_again_leads_the_old_game_s_phones_into_the_new_one(app: Flask, host: FlaskClient) -> None:
    """A rematch is a new game with new join links: its phones were left on the old winner, and a phone opening the
    new game got "this game needs its join link" (lifecycle audit, session 36). The old game now names the next
    one, live, and `/g/<old>/next` lets its phones in with the role they had."""
    old = store(app).game(new_game(host)["id"])
    assert old is not None
    player, viewer, stranger = phone(app), phone(app), phone(app)
    for client, token in ((player, old.player_token), (viewer, old.viewer_token)):
        assert client.get(f"/join/{old.id}?t={token}").status_code == 303  # the QR code: a cookie
    assert player.get(f"/g/{old.id}/next").status_code == 404  # nothing played again yet
    the_hub = hub(app)
    live = the_hub.live(old.id)
    assert live is not None
    subscriber, _ = the_hub.subscribe(live, None)
    assert host.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"], "again": "nope"}).status_code == 400
    created = new_game(host, "tally", ["Ann", "Bo"], title="Rematch", again=old.id)["id"]
    told = json.loads(subscriber.queue.get(timeout=1).decode().split("data: ", 1)[1])
    now = datetime.now().astimezone()  # (a minute may turn meanwhile)
    rematch = {"id": created, "title": "Rematch", "corrected": False, "started": told["next"]["started"]}
    assert told["next"] == rematch  # the old game's screens hear of it at once
    assert re.fullmatch(rf"{now:%a} {now.day} {now:%b}, \d\d:\d\d", rematch["started"])
    assert host.get(f"/api/games/{old.id}").get_json()["state"]["next"] == rematch
    for client, role in ((player, "player"), (viewer, "viewer")):
        followed = client.get(f"/g/{old.id}/next")
        # ?from: the new game's page carries the phone's "I am" over (table.js; roster audit F6, session 46)
        assert followed.status_code == 303 and followed.headers["Location"].endswith(f"/g/{created}?from={old.id}")
        assert boot_of(client.get(f"/g/{created}").get_data(as_text=True))["role"] == role
    assert stranger.get(f"/g/{old.id}/next").status_code == 403
    assert stranger.get(f"/g/{created}").status_code == 403
    assert host.get(f"/g/{old.id}/next").headers["Location"].endswith(f"/g/{created}?from={old.id}")


def test_a_phone_on_a_game_played_again_twice_goes_to_the_latest_and_its_button_says_when_it_started(
    app: Flask, host: FlaskClient
) -> None:
    """Play again twice: a phone bookmarked on the first game went through the second, over already, each step's
    button reading "Next game: Spades: Alex, Beth, Charlie, David" on a page of that title (weeks audit, session 47,
    F3). The button names the latest game and when it started, and a chain back onto itself (edited by hand) ends."""
    import sqlite3

    first = store(app).game(new_game(host)["id"])
    assert first is not None
    second = new_game(host, "tally", ["Ann", "Bo"], again=first.id)["id"]
    third = new_game(host, "tally", ["Ann", "Bo"], again=second)["id"]
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute(
        "UPDATE games SET created_ms = ? WHERE id = ?", (int(datetime(2026, 11, 27, 20, 5).timestamp() * 1000), third)
    )
    db.close()
    player = phone(app)
    assert player.get(f"/join/{first.id}?t={first.player_token}").status_code == 303
    followed = player.get(f"/g/{first.id}/next")
    assert followed.status_code == 303 and followed.headers["Location"].endswith(f"/g/{third}?from={first.id}")
    assert boot_of(player.get(f"/g/{third}").get_data(as_text=True))["role"] == "player"  # its cookie came
    page = host.get(f"/g/{first.id}").get_data(as_text=True)
    assert boot_of(page)["state"]["next"] == {
        "id": third,
        "title": "Tally: Ann, Bo",
        "corrected": False,
        "started": "Fri 27 Nov, 20:05",
    }
    assert ">Next game: Tally: Ann, Bo · started Fri 27 Nov, 20:05</a>" in page
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute("INSERT INTO next_games VALUES (?, ?)", (third, first.id))  # a loop
    db.close()
    assert host.get(f"/g/{second}/next").headers["Location"].endswith(f"/g/{first.id}?from={second}")
    assert host.get(f"/api/games/{third}").get_json()["state"]["next"]["id"] == second


def test_a_game_s_fix_players_link_opens_import_with_its_log_and_says_which_game_it_replaces(
    app: Flask, host: FlaskClient
) -> None:
    """Correcting a game's seats meant History, export, a text editor, Home, Import, choosing the file (roster audit
    F2, session 46): the host's History tab links to Import with the game's log in it, and the page says which game
    the import replaces (its title offered with "(corrected)": the home page listed the two games alike)."""
    gid = new_game(host, "tally", ["Ann", EVIL], title="Friday")["id"]
    assert post_event(host, gid, type="add", player="Ann", points=3).status_code == 201
    record = store(app).game(gid)
    assert record is not None
    assert f'id="fix-players" href="/import?again={gid}"' in host.get(f"/g/{gid}").get_data(as_text=True)
    player = phone(app)
    assert player.get(f"/join/{gid}?t={record.player_token}").status_code == 303
    assert 'id="fix-players"' not in player.get(f"/g/{gid}").get_data(as_text=True)  # Import is the host's
    assert player.get(f"/import?again={gid}").status_code == 403
    html = host.get(f"/import?again={gid}").get_data(as_text=True)
    assert boot_of(html) == {"again": gid}
    assert f"This replaces Friday</strong> (Ann, {escape(EVIL)})" in html
    exported = host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    assert f'<textarea id="log" rows="8" spellcheck="false">{escape(exported)}</textarea>' in html
    assert 'value="Friday (corrected)"' in html
    fixed = new_game(host, "tally", ["Ann", "Bo"], title="x" * 60 + " (corrected)")["id"]  # corrected again: counted
    assert f'value="{"x" * 60} (corrected 2)"' in host.get(f"/import?again={fixed}").get_data(as_text=True)
    tenth = new_game(host, "tally", ["Ann", "Bo"], title="z" * 66 + " (corrected 9)")["id"]  # 80 characters
    assert f'value="{"z" * 65} (corrected 10)"' in host.get(f"/import?again={tenth}").get_data(as_text=True)
    long = new_game(host, "tally", ["Ann", "Bo"], title="y" * 80)["id"]  # the title field's 80 characters
    assert f'value="{"y" * 68} (corrected)"' in host.get(f"/import?again={long}").get_data(as_text=True)
    unknown = host.get("/import?again=nosuchgame").get_data(as_text=True)
    assert boot_of(unknown) == {"problem": "The game to correct is not on this server: import its exported log here."}
    assert 'id="replaces"' not in unknown


def test_a_correction_of_a_corrected_game_is_offered_a_title_of_its_own_and_the_refusals_name_it(
    app: Flask, host: FlaskClient
) -> None:
    """Fri corrected as "Fri (corrected)", and that one corrected again from its History tab: it was offered
    "Fri (corrected)" too, the home page listed the two alike, and a late entry into the first correction was refused
    as "this game was corrected as 'Fri (corrected)'", its own title (a review, session 46, F5)."""
    titles = []
    game = new_game(host, "tally", ["Ann", "Bo"], title="Fri")["id"]
    chain = [game]
    for _ in range(2):  # as the Import page offers it, imported as offered
        html = host.get(f"/import?again={game}").get_data(as_text=True)
        found = re.search(r'<input id="title"[^>]* value="([^"]*)"', html)
        assert found is not None
        text = host.get(f"/api/games/{game}/export.jsonl").get_data(as_text=True)
        made = host.post("/api/import", json={"log": text, "title": found.group(1), "again": game})
        assert made.status_code == 201, made.get_json()
        game = made.get_json()["id"]
        chain.append(game)
        titles.append(found.group(1))
    assert titles == ["Fri (corrected)", "Fri (corrected 2)"]
    for old, replaced_by in zip(chain, titles, strict=False):
        late = post_event(host, old, type="add", player="Ann", points=1)
        assert late.status_code == 409 and f"this game was corrected as {replaced_by!r}" in late.get_json()["error"]
    assert post_event(host, chain[-1], type="add", player="Ann", points=1).status_code == 201


def test_a_next_game_damaged_in_the_database_leaves_the_old_one_playing(app: Flask, host: FlaskClient) -> None:
    """Every state of a game names the game played after it: one damaged by hand made the old game's page a 500, and
    an entry on it was stored but answered as an error (a review of session 36)."""
    import sqlite3

    old = new_game(host)["id"]
    following = new_game(host, "tally", ["Ann", "Bo"], again=old)["id"]
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute("UPDATE games SET options = '{not json' WHERE id = ?", (following,))
    db.close()
    assert host.get(f"/g/{old}").status_code == 200
    entry = post_event(host, old, type="add", player="Ann", points=3)
    assert entry.status_code == 201 and entry.get_json()["state"]["next"] is None


def test_play_again_after_a_game_damaged_in_the_database_makes_the_new_game_and_says_so(
    app: Flask, host: FlaskClient
) -> None:
    """The old game, not loaded (after a restart) and damaged by hand, was read to tell its screens: the host got an
    error for a game that had been made, and a retry made a second one (a review of session 36)."""
    import sqlite3

    old = new_game(host)["id"]
    assert post_event(host, old, type="add", player="Ann", points=3).status_code == 201
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute("DROP TRIGGER events_append_only_update")
    db.execute("UPDATE events SET line = '{not json' WHERE game_id = ?", (old,))
    db.close()
    hub(app)._games.pop(old, None)  # as after a restart
    answer = host.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"], "again": old})
    assert answer.status_code == 201 and store(app).next_game(old) == answer.get_json()["id"]


def test_a_table_loaded_afresh_lists_players_and_teams_in_seating_order(host: FlaskClient) -> None:
    """The page's boot data sorted every key (Jinja's own `tojson` default): a table loaded afresh drew totals and
    Spades' team columns alphabetically, and the next event put them in seating order, so two phones side by side
    showed the teams the other way round (monkey audit, session 41)."""
    game = new_game(host, "spades", ["Zoe", "Bea", "Amy", "Cal"])
    post_event(host, game["id"], type="hand", bids=dict.fromkeys(["Zoe", "Bea", "Amy", "Cal"], 3),
               tricks={"Zoe": 4, "Bea": 3, "Amy": 3, "Cal": 3})  # fmt: skip
    boot = boot_of(host.get(f"/g/{game['id']}").get_data(as_text=True))
    state = host.get(f"/api/games/{game['id']}").get_json()["state"]
    assert list(state["totals"]) == ["Zoe & Amy", "Bea & Cal"]
    assert list(boot["state"]["totals"]) == list(state["totals"])
    assert list(boot["state"]["history"][0]["teams"]) == ["Zoe & Amy", "Bea & Cal"]
