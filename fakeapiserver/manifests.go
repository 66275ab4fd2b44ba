package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Loading objects from manifests (YAML or JSON, several documents per
// file, "kind: List" unrolled), for tests and `kubecache serve`. Objects
// go through the same create path as a POST; an object that exists is
// replaced.

// createDefaultObjects creates what a fresh real API server creates for
// itself (internal/builtin.Bootstrap): the system namespaces, the
// kubernetes Service and ServiceCIDR, the system priority classes and,
// with Options.BootstrapRBAC, the bootstrap RBAC roles and bindings and
// the flow-control configuration.
func (s *Server) createDefaultObjects() {
	objs, err := builtin.Bootstrap(6443, s.services.FirstIP(), s.services.CIDR(), s.clock.Now())
	if err != nil {
		panic("fakeapiserver: default objects: " + err.Error())
	}
	for _, o := range objs {
		if !s.opts.BootstrapRBAC && (o.Group() == "rbac.authorization.k8s.io" || o.Group() == "flowcontrol.apiserver.k8s.io") {
			continue
		}
		if err := s.loadObject(context.Background(), jsonv.Marshal(o.Object), "kube-apiserver"); err != nil {
			panic("fakeapiserver: default object " + o.Kind + " " + o.Name + ": " + err.Error())
		}
	}
}

// Load creates (or replaces) every object in a YAML or JSON manifest:
// several documents separated by "---", and lists of kind List. Each
// object's apiVersion and kind must name a served resource.
func (s *Server) Load(ctx context.Context, manifest []byte) error {
	return s.loadManifest(ctx, manifest, "kubecache-load")
}

// LoadFiles loads every .yaml, .yml and .json file named, descending into
// directories (files in name order).
func (s *Server) LoadFiles(ctx context.Context, paths ...string) error {
	for _, p := range paths {
		var files []string
		err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					files = append(files, path)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("load %s: %w", p, err)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("load %s: %w", f, err)
			}
			if err := s.Load(ctx, data); err != nil {
				return fmt.Errorf("load %s: %w", f, err)
			}
		}
	}
	return nil
}

func (s *Server) loadManifest(ctx context.Context, manifest []byte, manager string) error {
	docs := splitYAMLDocuments(manifest)
	for i, doc := range docs {
		j, err := request.YAMLToJSON(doc, s.opts.MaxRequestBodyBytes)
		if err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		if len(bytes.TrimSpace(j)) == 0 || string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		if err := s.loadObject(ctx, j, manager); err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return nil
}

func (s *Server) loadObject(ctx context.Context, data []byte, manager string) error {
	var head struct {
		meta.TypeMeta
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if head.Kind == "List" || (strings.HasSuffix(head.Kind, "List") && head.Items != nil) {
		for i, item := range head.Items {
			if err := s.loadObject(ctx, item, manager); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	res := s.registry.ByKind(head.APIVersion, head.Kind)
	if res == nil {
		return fmt.Errorf("no resource serves kind %q in %q", head.Kind, head.APIVersion)
	}
	ns := head.Metadata.Namespace
	if res.Namespaced && ns == "" {
		ns = "default"
	}
	if !res.Namespaced {
		ns = ""
	}
	wo := writeOptions{manager: manager}
	_, _, err := s.create(ctx, res, res.Version, ns, data, wo)
	var st *meta.Status
	if errors.As(err, &st) && st.IsAlreadyExists() {
		in, derr := request.DecodeObject(s.registry, res, res.Version, data, "")
		if derr != nil {
			return derr
		}
		in.Meta.Namespace = ns
		in.Meta.ResourceVersion = ""
		saved := res.RequireResourceVersion
		cur := s.store.Get(res.StorageKey(), storage.ObjectKey(ns, in.Meta.Name))
		if cur != nil && (saved || res.Custom) {
			in.Meta.ResourceVersion = cur.Meta.ResourceVersion
		}
		_, _, err = s.update(ctx, res, ns, "", in, wo)
	}
	return err
}

// splitYAMLDocuments splits on lines that are exactly "---" (with optional
// trailing spaces or a comment).
func splitYAMLDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := bytes.TrimRight(line, " \t\r\n")
		if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- #")) {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	return append(docs, cur.Bytes())
}
