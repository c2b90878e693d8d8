package kumainspect

import (
	"encoding/json"
	"net/http"
)

// Response is what Kuma's API server answers a GET: the HTTP status and the JSON
// body (a value that encoding/json writes as Kuma writes it).
type Response struct {
	Status int
	Body   any
}

// JSON is the body as indented JSON, the way `meshguard inspect` prints it.
func (r Response) JSON() ([]byte, error) { return json.MarshalIndent(r.Body, "", "  ") }

// kumaError is Kuma's error body (pkg/core/rest/errors/types.Error): the same text
// in detail and details, type /std-errors.
type kumaError struct {
	Type    string `json:"type"`
	Status  int    `json:"status"`
	Title   string `json:"title"`
	Detail  string `json:"detail"`
	Details string `json:"details"`
}

func errorResponse(status int, title, detail string) Response {
	return Response{Status: status, Body: kumaError{Type: "/std-errors", Status: status, Title: title, Detail: detail, Details: detail}}
}

// notFound is Kuma's answer when a resource the request names is not in the store:
// the title says which lookup failed.
func notFound(title string) Response { return errorResponse(http.StatusNotFound, title, "Not found") }

// badRequest is Kuma's answer to a request it rejects (rest_errors.BadRequest):
// title "Bad Request", detail prefixed "bad request: ".
func badRequest(msg string) Response {
	return errorResponse(http.StatusBadRequest, "Bad Request", "bad request: "+msg)
}

// internalError is Kuma's answer to an error it has no mapping for: the title the
// handler gave, the detail hidden.
func internalError(title string) Response {
	return errorResponse(http.StatusInternalServerError, title, "Internal Server Error")
}

func ok(body any) Response { return Response{Status: http.StatusOK, Body: body} }
