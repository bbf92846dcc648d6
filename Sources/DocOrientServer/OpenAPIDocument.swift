/// The service's OpenAPI 3 document, served at `GET /openapi.json`. Its source is
/// `API/openapi.json`; `json` is embedded from it by `API/embed.py`, so that the binary serves it
/// wherever it is installed.
public enum OpenAPIDocument {
    /// Every route the service answers, as "METHOD path".
    public static let routes = [
        "POST /v1/orientation", "POST /v1/fix", "GET /healthz", "GET /openapi.json", "GET /metrics",
    ]
}
