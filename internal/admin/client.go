package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// DefaultTimeout bounds one request when Options.Timeout is zero (Java's admin tools use 5 s for
// most calls).
const DefaultTimeout = 5 * time.Second

// ErrNoNamesrv is returned by calls that need a name server when none was given.
var ErrNoNamesrv = errors.New("admin: no name server address (use -n or NAMESRV_ADDR)")

// Options configure a Client.
type Options struct {
	// NamesrvAddrs are the name servers, tried in order until one answers.
	NamesrvAddrs []string
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// Serialize is the header encoding of every request: JSON (the zero value), as Java's tools
	// send, or ROCKETMQ.
	Serialize protocol.SerializeType
	// AccessKey and SecretKey, when AccessKey is set, sign every request as Java's
	// AclClientRPCHook does, for brokers with aclEnable (name servers ignore the fields).
	AccessKey string
	SecretKey string
}

// Client sends admin requests. It is safe for concurrent use.
type Client struct {
	namesrv   []string
	timeout   time.Duration
	serialize protocol.SerializeType
	accessKey string
	secretKey string
	rc        *remoting.Client
}

// New returns a client; it connects on first use.
func New(opts Options, lg *zap.Logger) *Client {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Client{
		namesrv:   opts.NamesrvAddrs,
		timeout:   opts.Timeout,
		serialize: opts.Serialize,
		accessKey: opts.AccessKey,
		secretKey: opts.SecretKey,
		rc:        remoting.NewClient(remoting.ClientOptions{RequestTimeout: opts.Timeout, DialTimeout: opts.Timeout}, lg),
	}
}

// ParseNamesrvAddrs splits a name server list the way Java does: addresses separated by ';'
// (',' and spaces are accepted too); empty elements are dropped.
func ParseNamesrvAddrs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
}

// NamesrvAddrs returns the name servers the client uses.
func (c *Client) NamesrvAddrs() []string { return c.namesrv }

// Close closes every connection.
func (c *Client) Close() error { return c.rc.Close() }

// ServerError is a response whose code is not the one the request expects.
type ServerError struct {
	Addr    string
	Request protocol.RequestCode
	Code    protocol.ResponseCode
	Remark  string
}

// Error reads like "127.0.0.1:10911 GET_TOPIC_STATS_INFO: TOPIC_NOT_EXIST (17): topic[T] not exist".
func (e *ServerError) Error() string {
	return fmt.Sprintf("%s %s: %s (%d): %s", e.Addr, e.Request, e.Code, int(e.Code), e.Remark)
}

// IsCode reports whether err is (or wraps) a ServerError with the given response code.
func IsCode(err error, code protocol.ResponseCode) bool {
	var se *ServerError
	return errors.As(err, &se) && se.Code == code
}

// invoke sends req to addr and returns the response if its code is SUCCESS; any other code is a
// *ServerError.
func (c *Client) invoke(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error) {
	code := req.RequestCode()
	resp, err := c.invokeAny(ctx, addr, req)
	if err != nil {
		return nil, err
	}
	if resp.ResponseCode() != protocol.Success {
		return nil, &ServerError{Addr: addr, Request: code, Code: resp.ResponseCode(), Remark: resp.Remark}
	}
	return resp, nil
}

// sign adds the account and the request's signature to its ext fields (Java AclClientRPCHook):
// HmacSHA1 of every ext field's value in key order, then the body, keyed by the secret key.
func (c *Client) sign(req *protocol.Command) {
	if c.accessKey == "" {
		return
	}
	req.ExtFields.Set(protocol.ExtAccessKey, c.accessKey)
	req.ExtFields.Delete(protocol.ExtSignature)
	req.ExtFields.Set(protocol.ExtSignature, acl.Sign(c.secretKey, req.ExtFields, req.Body))
}

// invokeNamesrv sends a request built by newReq to the name servers in turn and returns the first
// answer. A server's error answer is returned as it is; only a failure to reach one (or a timeout)
// moves on to the next.
func (c *Client) invokeNamesrv(ctx context.Context, newReq func() *protocol.Command) (*protocol.Command, error) {
	if len(c.namesrv) == 0 {
		return nil, ErrNoNamesrv
	}
	var errs []error
	for _, addr := range c.namesrv {
		resp, err := c.invoke(ctx, addr, newReq())
		var se *ServerError
		if err == nil || errors.As(err, &se) || ctx.Err() != nil {
			return resp, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// invokeAllNamesrv sends a request built by newReq to every name server (writes, such as deleting
// a topic's route, must reach all of them).
func (c *Client) invokeAllNamesrv(ctx context.Context, newReq func() *protocol.Command) error {
	if len(c.namesrv) == 0 {
		return ErrNoNamesrv
	}
	return fanOut(c.namesrv, func(addr string) error {
		_, err := c.invoke(ctx, addr, newReq())
		return err
	})
}

// fanOut calls f for each address in parallel, waits for all, and joins their errors.
func fanOut(addrs []string, f func(addr string) error) error {
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(addr)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
