/// The hand-written OpenAPI 3 document of the service, served at `GET /openapi.json`.
public enum OpenAPIDocument {
    /// Every route the service answers, as "METHOD path".
    public static let routes = [
        "POST /v1/orientation", "POST /v1/fix", "GET /healthz", "GET /openapi.json", "GET /metrics",
    ]

    /// The document as JSON text, the body of `GET /openapi.json`: the endpoints, their
    /// parameters, the record and error schemas, and the status codes each can answer.
    public static let json = #"""
        {
          "openapi": "3.0.3",
          "info": {"title": "docorient", "version": "1",
                   "description": "Puts photographed documents the right way up."},
          "paths": {
            "/v1/orientation": {
              "post": {
                "summary": "Decide the orientation of an image without changing it",
                "requestBody": {"required": true, "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                "responses": {
                  "200": {"description": "The record `docorient fix --json` prints", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Record"}}}},
                  "413": {"description": "Body too large", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "415": {"description": "Not a supported image (JPEG, PNG, TIFF, HEIF)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "422": {"description": "A broken image or a limit exceeded", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "503": {"description": "Busy: more image requests in flight than the service admits; retry after the Retry-After seconds",
                          "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
                }
              }
            },
            "/v1/fix": {
              "post": {
                "summary": "Fix an image: rewrite its orientation tag (tag) or rotate its pixels losslessly (bake)",
                "parameters": [{"name": "mode", "in": "query", "required": false, "schema": {"type": "string", "enum": ["tag", "bake"], "default": "tag"}}],
                "requestBody": {"required": true, "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                "responses": {
                  "200": {"description": "The fixed image; the record as JSON in the X-DocOrient-Record header",
                          "headers": {"X-DocOrient-Record": {"schema": {"type": "string"}}},
                          "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                  "400": {"description": "Unknown mode", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "413": {"description": "Body too large", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "415": {"description": "Not a supported image", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "422": {"description": "A broken image, a limit exceeded, or a bake that would lose edge pixels", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "503": {"description": "Busy: more image requests in flight than the service admits; retry after the Retry-After seconds",
                          "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
                }
              }
            },
            "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "Serving"}}}},
            "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3 JSON"}}}},
            "/metrics": {"get": {"summary": "Prometheus metrics: requests by endpoint and status, their duration, requests in flight and queued",
                                 "responses": {"200": {"description": "Prometheus text exposition format 0.0.4",
                                                       "content": {"text/plain": {"schema": {"type": "string"}}}}}}}
          },
          "components": {
            "schemas": {
              "Error": {"type": "object", "required": ["error", "message"], "properties": {
                "error": {"type": "string", "enum": ["unsupported_format", "malformed", "io", "limit_exceeded", "imperfect_transform", "library", "missing_model", "invalid_request"]},
                "message": {"type": "string"}}},
              "Record": {"type": "object", "properties": {
                "path": {"type": "string", "nullable": true},
                "exif_orientation": {"type": "integer", "nullable": true},
                "detected_orientation": {"type": "integer", "nullable": true},
                "confidence": {"type": "number"}, "margin": {"type": "number"},
                "verdict": {"type": "string"}, "action": {"type": "string"},
                "reason": {"type": "string", "nullable": true},
                "error_code": {"type": "string", "nullable": true},
                "candidates": {"type": "array", "items": {"type": "object"}},
                "elapsed_ms": {"type": "number"}}}
            }
          }
        }
        """#
}
