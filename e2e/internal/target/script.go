package target

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// runScript runs realserver.sh with args, bounded in time, and returns its
// output in the error when it fails.
func runScript(ctx context.Context, script string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", script, strings.Join(args, " "), err, out)
	}
	return nil
}

// readEnvFile reads the KEY=VALUE lines of realserver.sh's DIR/env.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s (is the server started?): %w", path, err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			env[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	for _, k := range []string{"REALSERVER_KUBECONFIG", "ETCD_URL"} {
		if env[k] == "" {
			return nil, fmt.Errorf("%s has no %s", path, k)
		}
	}
	return env, nil
}
