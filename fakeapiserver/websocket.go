package fakeapiserver

import (
	"net/http"
	"strings"
)

func isWebsocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func (s *Server) serveWebsocketWatch(w http.ResponseWriter, r *http.Request, wr watchRequest) {
	writeStatus(w, r, errBadRequest("websocket watch is not implemented yet"))
}
