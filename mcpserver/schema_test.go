package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/mcpserver"
)

// functionCallingKeys are the keywords of the schema subset that
// function-calling clients built on OpenAPI 3.0 schemas accept (Gemini's
// Schema object: a select subset of OpenAPI 3.0); any other keyword is an
// unknown field they refuse.
var functionCallingKeys = []string{"type", "format", "title", "description", "nullable", "enum", "items",
	"minItems", "maxItems", "properties", "required", "propertyOrdering", "minProperties", "maxProperties",
	"minLength", "maxLength", "pattern", "example", "anyOf", "minimum", "maximum", "default"}

// functionCallingTypes are the types of that subset, each one word.
var functionCallingTypes = []string{"object", "array", "string", "integer", "number", "boolean"}

// checkFunctionCalling reports where schema s, at path, leaves the subset.
func checkFunctionCalling(path string, s map[string]any) []string {
	var bad []string
	for k := range s {
		if !slices.Contains(functionCallingKeys, k) {
			bad = append(bad, fmt.Sprintf("%s: keyword %q", path, k))
		}
	}
	typ, ok := s["type"].(string)
	if !ok || !slices.Contains(functionCallingTypes, typ) {
		bad = append(bad, fmt.Sprintf("%s: type %v, want one of %v", path, s["type"], functionCallingTypes))
	}
	if e, ok := s["enum"]; ok {
		for _, v := range e.([]any) {
			if _, ok := v.(string); !ok {
				bad = append(bad, fmt.Sprintf("%s: enum value %v is not a string", path, v))
			}
		}
	}
	if typ == "array" {
		items, ok := s["items"].(map[string]any)
		if !ok {
			bad = append(bad, path+": array without items")
		} else {
			bad = append(bad, checkFunctionCalling(path+".items", items)...)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			bad = append(bad, checkFunctionCalling(path+"."+name, p.(map[string]any))...)
		}
	}
	return bad
}

// TestTools_FunctionCallingSchemas validates every tool's input schema
// against the subset Gemini-style function-calling clients accept: one
// plain type a schema, optional arguments optional by their absence.
func TestTools_FunctionCallingSchemas(t *testing.T) {
	ctx := context.Background()
	srv, err := mcpserver.New(mcpserver.Options{Client: client.New(t.TempDir() + "/none.sock"), Dir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s["type"] != "object" {
			t.Errorf("%s: input schema type %v, want object", tool.Name, s["type"])
		}
		for _, bad := range checkFunctionCalling(tool.Name, s) {
			t.Error(bad)
		}
		// Every project argument is described, in the same words.
		if p, ok := s["properties"].(map[string]any)["project"].(map[string]any); ok &&
			!strings.HasPrefix(fmt.Sprint(p["description"]), "Optional. The ragd project (its name, or a path inside its repository).") {
			t.Errorf("%s: project described as %q", tool.Name, p["description"])
		}
	}
}
