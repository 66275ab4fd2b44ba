package fakeapiserver

import (
	"net/http"
	"strings"
)

const adminPrefix = "/kubecache-admin/"

func isAdminPath(p string) bool { return strings.HasPrefix(p, adminPrefix) }

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, errPathNotFound())
}
