"""A stream's address as people may see it: without its password or tokens.

A phone camera app or an IP camera often wants a user name and password (``rtsp://user:pass@192.168.1.20/stream1``,
``http://user:pass@phone:8080/video``) or a token in the query (``?token=...``). The source's name is shown on every
player's screen (the camera line of the Table tab, drawn into the camera picture a screenshot carries), in error
messages and in the server's log: every one of them shows it as :func:`shown_url` writes it. OpenCV still gets the
address as given (the phone-camera audit, session 44).

Standard library only: ``web`` names the camera source with it without importing OpenCV.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

__all__ = ["shown_url"]

HIDDEN = "***"
# a secret in the path, as some IP cameras take their login (XMEye's /user=admin_password=x_channel=1, Dahua's
# ;user=admin;password=x): its value, to the next / ; & ? or #
PATH_SECRET = re.compile(r"(?i)((?:password|passwd|pass|pwd|token|secret|key|auth)=)[^/;&?#]*")


def shown_url(text: str) -> str:
    """``text`` with a URL's password (or a user name alone), its query's values (a key alone too) and its fragment
    hidden; text that is not a URL comes back as it is."""
    if "://" not in text:
        return text
    scheme, _, rest = text.partition("://")
    end = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    at, login = rest.rfind("@", 0, end), ""
    if at >= 0 and (":" in rest[:at] or "/" not in rest[:at]):  # a login (a '/' in its password too, not encoded)
        user = rest[:at]
        login = (f"{user.split(':', 1)[0]}:{HIDDEN}" if ":" in user else HIDDEN) + "@"
        rest = rest[at + 1 :]
    try:
        parts = urlsplit(f"{scheme}://{rest}")
        netloc = login + parts.netloc
    except ValueError:  # not a URL urllib can split (a bracket left open): hide everything after the scheme
        return f"{scheme}://{HIDDEN}"
    pairs = parse_qsl(parts.query, keep_blank_values=True)  # a key alone (?SECRET) may be the secret itself
    query = "&".join(f"{key}={HIDDEN}" if value else HIDDEN for key, value in pairs) or (HIDDEN if parts.query else "")
    path = PATH_SECRET.sub(lambda m: m.group(1) + HIDDEN, parts.path)
    return urlunsplit((parts.scheme, netloc, path, query, HIDDEN if parts.fragment else ""))
