"""``/docs`` (Swagger UI) and ``/redoc`` served from packaged assets: no third-party origin, working offline.

The JavaScript and CSS come from the ``fastapi-offline`` package (Swagger UI and ReDoc's own builds, shipped as
its package data; a dependency of ``memdesk[server]``) and are served at ``/docs-assets/<file>``. The pages load
nothing from another host (no CDN, no web fonts, no remote favicon) and say so to the browser with a
``Content-Security-Policy`` of ``'self'``.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import Response

ASSETS = "/docs-assets"
_TYPES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
# Swagger UI's page starts it with an inline script; ReDoc's uses blob: workers; both load only from here
_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'"
)


def docs_router(openapi_url: str, title: str) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    files = resources.files("fastapi_offline") / "static"

    @router.get("/docs")
    def swagger() -> Response:
        page = get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{title} - API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
        )  # fmt: skip
        page.headers["Content-Security-Policy"] = _CSP
        return page

    @router.get("/redoc")
    def redoc() -> Response:
        page = get_redoc_html(
            openapi_url=openapi_url, title=f"{title} - API", redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png", with_google_fonts=False,
        )  # fmt: skip
        page.headers["Content-Security-Policy"] = _CSP
        return page

    @router.get(ASSETS + "/{name}")
    def asset(name: str) -> Response:
        if name not in _TYPES:
            return Response(status_code=404)
        body = (files / name).read_bytes()
        return Response(body, media_type=_TYPES[name], headers={"Cache-Control": "public, max-age=86400"})

    return router
