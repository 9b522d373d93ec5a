package mcpclient

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
)

// BenchmarkDecode reads answers of the sizes a run gets: a method's source
// and a class's source (CR line endings, as the image sends them), each in
// text and structured content as FastMCP sends them.
//
//	go test -run '^$' -bench Decode -benchmem ./mcpclient
func BenchmarkDecode(b *testing.B) {
	class, err := os.ReadFile("../examples/sample-image/src/Sample-Shop/Calculator.class.st")
	require.NoError(b, err)
	for _, tc := range []struct {
		name   string
		result string
	}{
		{"method_source", "sum: a with: b\r\t\"Answer the sum\"\r\r\t^ a + b"},
		{"class_source", strings.ReplaceAll(string(class), "\n", "\r")},
	} {
		envelope := map[string]any{"success": true, "result": tc.result}
		text, err := json.Marshal(envelope)
		require.NoError(b, err)
		raw, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(text))}, StructuredContent: envelope})
		require.NoError(b, err)
		c, err := New(Config{Command: "unused"})
		require.NoError(b, err)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var s string
				if err := c.decode("get_method_source", raw, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
