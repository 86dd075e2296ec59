// A TLS front for the Node server, as a hosted deployment has one: kubectl sends a kubeconfig's
// bearer token only over https (clientcmd applies user credentials only when the transport is
// TLS), so real kubectl must reach the API through TLS. The certificate is self-signed, made by
// openssl for the test; the kubeconfig then says insecure-skip-tls-verify.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";

export interface TlsProxy {
  port: number;
  close(): Promise<void>;
}

export async function tlsProxy(dir: string, targetPort: number): Promise<TlsProxy> {
  const key = join(dir, "tls.key");
  const cert = join(dir, "tls.crt");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], { stdio: "ignore" });
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const up = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      // A watch's headers go out at once, as from the server: a client waits for them before it
      // can stop watching (kubectl rollout status of a finished rollout hung here on an idle cluster).
      res.flushHeaders();
      r.pipe(res);
    });
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  // Upgrade requests (kubectl exec's WebSocket/SPDY) are passed through as raw bytes.
  server.on("upgrade", (req, socket, head) => {
    const up = net.connect(targetPort, "127.0.0.1", () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(lines.join("\r\n") + "\r\n\r\n");
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on("error", () => socket.destroy());
    socket.on("error", () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// Manual use: npx tsx test/kubeapi/tls-proxy.ts <dir> <targetPort> <listenPortFile>
if (process.argv[1]?.endsWith("tls-proxy.ts") && process.argv[2]) {
  const p = await tlsProxy(process.argv[2], Number(process.argv[3]));
  console.log(`tls proxy on https://127.0.0.1:${p.port}`);
}
