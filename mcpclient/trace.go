package mcpclient

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// startCallSpan opens the span of one MCP tool call, named and described
// after OpenTelemetry's MCP conventions. It carries the tool's name only:
// a call's arguments and answer hold method sources, which stay out of
// traces.
func (c *Client) startCallSpan(ctx context.Context, tool string) (context.Context, trace.Span) {
	return c.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.tool.name", tool),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("network.transport", "pipe"),
	))
}
