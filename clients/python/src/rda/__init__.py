"""The Python client of the Reddit Data API: typed calls, self-paging listings, safe retries,
export jobs and monitors, webhook verification, and DataFrames. See README.md."""

__version__ = "1.0.0"

from ._generated import models  # noqa: E402
from ._generated.operations import OPERATIONS  # noqa: E402
from ._http import RetryPolicy  # noqa: E402
from .background import Export, MonitorItems  # noqa: E402
from .client import AsyncClient, Client  # noqa: E402
from .errors import (  # noqa: E402
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InsufficientCreditsError,
    NotFoundError,
    RateLimitedError,
    RdaError,
    ServiceUnavailableError,
    TransportError,
    UpstreamError,
    WebhookVerificationError,
)
from .frames import read_export, to_frame  # noqa: E402
from .results import Download, Page, Result  # noqa: E402
from .webhooks import verify_webhook  # noqa: E402

__all__ = [
    "OPERATIONS",
    "ApiError",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "Download",
    "Export",
    "InsufficientCreditsError",
    "MonitorItems",
    "NotFoundError",
    "Page",
    "RateLimitedError",
    "RdaError",
    "Result",
    "RetryPolicy",
    "ServiceUnavailableError",
    "TransportError",
    "UpstreamError",
    "WebhookVerificationError",
    "models",
    "read_export",
    "to_frame",
    "verify_webhook",
]
