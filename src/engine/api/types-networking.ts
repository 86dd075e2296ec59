// networking.k8s.io/v1 Ingress and IngressClass in their v1 JSON shapes, every field of the Go
// types listed (strict decoding refuses others).

import { z } from "zod";
import { ObjectMeta } from "./types.js";

const str = z.string();
const int = z.number().int();
const typeMeta = { kind: str.optional(), apiVersion: str.optional() };

const TypedLocalObjectReference = z.strictObject({ apiGroup: str.nullable().optional(), kind: str, name: str });

export const IngressBackend = z.strictObject({
  service: z
    .strictObject({ name: str, port: z.strictObject({ name: str.optional(), number: int.optional() }).optional() })
    .nullable()
    .optional(),
  resource: TypedLocalObjectReference.nullable().optional(),
});

const HTTPIngressPath = z.strictObject({ path: str.optional(), pathType: str.nullable().optional(), backend: IngressBackend });

export const IngressRule = z.strictObject({
  host: str.optional(),
  http: z.strictObject({ paths: z.array(HTTPIngressPath).nullable() }).nullable().optional(),
});

const PortStatus = z.strictObject({ port: int, protocol: str, error: str.nullable().optional() });

export const Ingress = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .strictObject({
      ingressClassName: str.nullable().optional(),
      defaultBackend: IngressBackend.nullable().optional(),
      tls: z.array(z.strictObject({ hosts: z.array(str).nullable().optional(), secretName: str.optional() })).nullable().optional(),
      rules: z.array(IngressRule).nullable().optional(),
    })
    .optional(),
  status: z
    .looseObject({
      loadBalancer: z
        .strictObject({
          ingress: z.array(z.strictObject({ ip: str.optional(), hostname: str.optional(), ports: z.array(PortStatus).nullable().optional() })).nullable().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type Ingress = z.infer<typeof Ingress>;

export const IngressClass = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .strictObject({
      controller: str.optional(),
      parameters: z.strictObject({ apiGroup: str.nullable().optional(), kind: str, name: str, scope: str.nullable().optional(), namespace: str.nullable().optional() }).nullable().optional(),
    })
    .optional(),
});
export type IngressClass = z.infer<typeof IngressClass>;
