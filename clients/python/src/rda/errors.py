"""Every failure of a call as one exception type, with what the API said (docs/api.md#errors)."""

from __future__ import annotations

from typing import Any


class RdaError(Exception):
    """Any failure of a call: an API error (`ApiError`) or no answer at all (`TransportError`)."""


class ApiError(RdaError):
    """The API answered with an error status.

    `code` is the catalog's stable code when the body carries one (docs/api.md#errors), `param` the
    parameter it names; quote `request_id` when asking for help.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.request_id = request_id
        #: Seconds the API asked to wait (`Retry-After`), on 429 and 503.
        self.retry_after = retry_after
        self.body = body


class BadRequestError(ApiError):
    """400: a parameter or field is wrong; the message names it. Never charged."""


class AuthenticationError(ApiError):
    """401: no key, or a malformed, unknown or revoked one."""


class InsufficientCreditsError(ApiError):
    """402: the balance is 0, or the key's monthly spend cap is reached. Never charged."""


class NotFoundError(ApiError):
    """404: no such monitor or export for this key (or no such route)."""


class ConflictError(ApiError):
    """409: the resource is not in a state for this (an export not done, a duplicate in flight…)."""


class RateLimitedError(ApiError):
    """429: the key's limit, the shared reserve or the archive's budget; `retry_after` says when."""


class UpstreamError(ApiError):
    """502: the archive failed or did not answer in time; the credit was refunded."""


class ServiceUnavailableError(ApiError):
    """503: a dependency of the service is down; never charged, retry after `retry_after`."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitedError,
    502: UpstreamError,
    503: ServiceUnavailableError,
}


def api_error(status: int, body: Any, request_id: str | None, retry_after: float | None) -> ApiError:
    """The exception for an error answer: `{error, code?, param?}` as the API sends it."""
    fields = body if isinstance(body, dict) else {}
    error = fields.get("error")
    message = error if isinstance(error, str) else f"HTTP {status}"
    return _BY_STATUS.get(status, ApiError)(
        status,
        message,
        code=fields.get("code"),
        param=fields.get("param"),
        request_id=request_id,
        retry_after=retry_after,
        body=body,
    )


class TransportError(RdaError):
    """No complete answer: the connection failed or the client's timeout passed."""


class WebhookVerificationError(RdaError):
    """A webhook whose signature, timestamp or headers do not verify: refuse it (answer 400)."""
