// The service's error codes. Every failure a client can cause is one of these,
// thrown from anywhere (routes, store, auth, datasources) and turned into an
// HTTP response in one place (routes/on-error.ts). Each has a stable
// `code` that tests and clients can rely on; the message is the `detail`.

export interface FieldProblem {
  /** Dotted path of the offending field, e.g. "configuration.layers.0.color". */
  path: string;
  message: string;
}

/** code -> HTTP status. The code is the contract; the status follows from it. */
const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  changed_on_disk: 409,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  datasource_unavailable: 503,
  identity_provider_unavailable: 503,
  resource_unavailable: 503,
  store_unavailable: 503,
  storage_unavailable: 507,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ServiceErrorOptions {
  errors?: FieldProblem[];
  headers?: Record<string, string>;
  /** The OAuth 2.0 error code (RFC 6749 5.2), for the token endpoint: sent as `error`, the detail as `error_description`. */
  oauth?: string;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldProblem[];
  readonly headers?: Record<string, string>;
  readonly oauth?: string;

  constructor(code: ErrorCode, detail: string, options: ServiceErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers;
    this.oauth = options.oauth;
  }
}

export const badRequest = (detail: string, errors?: FieldProblem[]) =>
  new ServiceError('bad_request', detail, { errors });
export const validationFailed = (detail: string, errors?: FieldProblem[]) =>
  new ServiceError('validation_failed', detail, { errors });
export const notFound = (detail: string) => new ServiceError('not_found', detail);
export const conflict = (detail: string) => new ServiceError('conflict', detail);
export const preconditionFailed = (detail: string) => new ServiceError('precondition_failed', detail);
export const datasourceUnavailable = (detail: string, cause?: unknown) =>
  new ServiceError('datasource_unavailable', detail, { cause });

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
