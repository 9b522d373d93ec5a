package mcpclient

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A tool call goes straight to the session's transport, not through
// mcp-go's Client.CallTool: that one decodes every answer about seven
// times (the content items twice each, the structured content into a
// map) before this package could read it, while the answer is read here
// once, from one of the two copies the server sends (decode.go). The
// handshake and tools/list still go through mcp-go's Client.

// callParams are the params of tools/call.
type callParams struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// cancelNoticeTimeout bounds sending notifications/cancelled.
const cancelNoticeTimeout = 5 * time.Second

// callTool sends one tools/call and answers its JSON-RPC result, undecoded.
// Its ids are strings ("call-N"), so they never meet the numbers mcp-go's
// Client gives its own requests on the same transport. When ctx ends
// first, the server is told to stop working on the call, as mcp-go's
// Client does: over stdio a notifications/cancelled is the only way.
func (s *session) callTool(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	id := mcp.NewRequestId("call-" + strconv.FormatUint(s.calls.Add(1), 10))
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodToolsCall),
		Params: callParams{Name: tool, Arguments: args},
	})
	if err != nil {
		if ctx.Err() != nil {
			s.cancelCall(id, ctx.Err())
		}
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// cancelCall sends notifications/cancelled for a call given up, off the
// caller's path (a server that does not read must not hold it up); it is
// best effort, like mcp-go's own.
func (s *session) cancelCall(id mcp.RequestId, reason error) {
	notice := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason.Error()}},
		},
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), cancelNoticeTimeout)
		defer cancel()
		_ = s.tr.SendNotification(ctx, notice)
	}()
}
