package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// maxManifestBytes bounds one manifest file serve --load reads: 64 MiB,
// room for thousands of objects (the server takes at most 3 MiB each) and
// far from a memory problem. A larger file is refused, not truncated.
const maxManifestBytes = 64 << 20

// errNotRegular is wrapped by the error for a manifest that is not a
// regular file (a FIFO, a device, a socket), which serve never opens for
// reading: a FIFO would block for ever, /dev/zero would never end.
var errNotRegular = errors.New("not a regular file")

// loadManifests creates the objects of the manifests at paths: each a file,
// or a directory whose .yaml, .yml and .json files are read in name order.
// A directory's files are opened through an os.Root of it, so a symbolic
// link that leads out of the directory is refused; only regular files are
// read, each at most maxManifestBytes.
func loadManifests(ctx context.Context, s *fakeapiserver.Server, paths []string) error {
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			data, err := readManifest(func(flag int) (*os.File, error) { return os.OpenFile(p, flag, 0) }, p)
			if err != nil {
				return err
			}
			if err := s.Load(ctx, data); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			continue
		}
		if err := loadDir(ctx, s, p); err != nil {
			return err
		}
	}
	return nil
}

// loadDir loads the manifests of one directory, confined to it.
func loadDir(ctx context.Context, s *fakeapiserver.Server, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var files []string
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, name)
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	sort.Strings(files)
	for _, name := range files {
		path := filepath.Join(dir, name)
		data, err := readManifest(func(flag int) (*os.File, error) { return root.OpenFile(name, flag, 0) }, path)
		if err != nil {
			return err
		}
		if err := s.Load(ctx, data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// readManifest opens a manifest without blocking (a FIFO opened for reading
// would wait for a writer), refuses anything but a regular file, and reads
// at most maxManifestBytes of it.
func readManifest(open func(flag int) (*os.File, error), path string) ([]byte, error) {
	f, err := open(os.O_RDONLY | syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, errNotRegular, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxManifestBytes)
	}
	return data, nil
}
