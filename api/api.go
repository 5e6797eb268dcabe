// Package api holds the wire types of ragd's socket: the request and
// response bodies of every route, the error shape and its codes, and the
// routes' paths. The daemon's handlers and the typed client in package
// client both use them; neither side declares its own. It imports only the
// domain package.
package api

// ErrorBody is every error answer: {"error": {"code": "...", "message": "..."}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names an error with a stable code and a message for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
