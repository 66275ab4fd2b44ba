package selector_test

import (
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/selector"
)

func Example() {
	sel, err := selector.ParseLabels("tier != db, env in (qa,prod), app=web, !canary")
	if err != nil {
		panic(err)
	}
	fmt.Println(sel) // canonical: sorted by key, values sorted

	fmt.Println(sel.Matches(map[string]string{"app": "web", "env": "prod"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "env": "prod", "canary": "true"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "env": "dev"}))

	fields, err := selector.ParseFields(`metadata.name=web,status.phase!=Running`)
	if err != nil {
		panic(err)
	}
	pod := map[string]string{"metadata.name": "web", "status.phase": "Pending"}
	fmt.Println(fields.Matches(func(f string) (string, bool) { v, ok := pod[f]; return v, ok }))
	name, _ := fields.RequiresExactMatch("metadata.name")
	fmt.Println(name)

	_, err = selector.ParseLabels("env in (prod")
	var perr *selector.ParseError
	fmt.Println(errors.As(err, &perr), perr.Pos)
	fmt.Println(err)
	// Output:
	// app=web,!canary,env in (prod,qa),tier!=db
	// true
	// false
	// false
	// true
	// web
	// true 12
	// invalid label selector "env in (prod": at byte 12: found end of string in a set of values, expected ',' or ')'
}
