// Objects read from -f files, directories and stdin (kubectl's resource builder), mapped to their types.

import { parseDocument } from "yaml";
import { parseSelector, type Selector } from "../../engine/api/labels.js";
import { lookupKind, type ResourceInfo } from "../../engine/api/resources.js";
import type { ObjectMeta } from "../../engine/api/types.js";
import { between, type KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { goYamlProblem, yamlDocuments } from "./yaml-errors.js";

/** An object as a file holds it: whatever fields it has, until the apiserver decodes it. */
interface ManifestObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

interface Manifest {
  info: ResourceInfo;
  obj: ManifestObject;
  source: string;
}

/** What the files held, read as kubectl's resource builder visits them with ContinueOnError. */
export interface ManifestsRead {
  manifests: Manifest[];
  /** The errors met while reading, each with how many manifests were read before it. */
  errors: { at: number; message: string }[];
}

/**
 * Reads the files document by document. As kubectl's StreamVisitor does, a document that does
 * not parse (or fails the schema check) ends its file: the documents before it are kept, the
 * ones after it are not read; an object that cannot be mapped is skipped and reading goes on;
 * the next file is read either way. A file that is not there fails the whole command.
 */
export async function readManifestsContinuing(files: string[], recursive: boolean, ctx: KubectlContext): Promise<ManifestsRead> {
  const out: Manifest[] = [];
  const errors: ManifestsRead["errors"] = [];
  const fail = (e: unknown) => {
    if (!(e instanceof KubectlError)) throw e;
    errors.push({ at: out.length, message: e.message });
  };
  for (const file of files) {
    let sources: string[];
    if (file === "-") sources = ["-"];
    else if (/^https?:\/\//.test(file)) throw new KubectlError(`unable to read URL "${file}", server reported 404 Not Found, status code=404`);
    else {
      const entries = await ctx.listDir(file);
      sources = entries ? entries.filter((e) => /\.(ya?ml|json)$/.test(e)).sort().map((e) => `${file.replace(/\/$/, "")}/${e}`) : [file];
      void recursive;
    }
    for (const src of sources) {
      let text: string;
      if (src === "-") text = ctx.stdin;
      else {
        try {
          text = await ctx.readFile(src);
        } catch {
          throw new KubectlError(`the path "${src}" does not exist`);
        }
      }
      try {
        for await (const obj of documents(text, src, ctx)) {
          try {
            if (obj.kind === "List" && Array.isArray(obj.items)) for (const it of obj.items as ManifestObject[]) out.push(manifest(it, src, ctx));
            else out.push(manifest(obj, src, ctx));
          } catch (e) {
            if (e instanceof KubectlError && /^error validating/.test(e.message)) throw e;
            fail(e);
          }
        }
      } catch (e) {
        fail(e);
      }
    }
  }
  return { manifests: out, errors };
}

/** The objects of a file's documents, in order; throws at the first document that does not parse. */
async function* documents(text: string, src: string, ctx: KubectlContext): AsyncGenerator<ManifestObject> {
  // Document by document, as kubectl's YAMLReader splits them; each converted as sigs.k8s.io/yaml
  // does (go-yaml v2, not strict: a repeated key is accepted and the last one wins).
  for (const chunk of yamlDocuments(text)) {
    // A file of 3000 documents takes seconds to parse: the line's slice between documents
    // lets other clusters' requests in (and a stopped line ends here).
    if (!(await between(ctx))) return;
    const d = parseDocument(chunk, { uniqueKeys: false });
    if (d.errors.length) {
      // The yaml library finds that there is a mistake; go-yaml's words and line come from yaml-errors.
      const line = d.errors[0].linePos?.[0]?.line ?? 1;
      const problem = goYamlProblem(chunk) ?? `yaml: line ${Math.max(1, line - 1)}: did not find expected key`;
      throw new KubectlError(`error parsing ${src}: error converting YAML to JSON: ${problem}`);
    }
    let obj: ManifestObject | null | undefined;
    try {
      obj = d.toJS() as ManifestObject | null | undefined;
    } catch (e) {
      // An alias bomb ("billion laughs"): the yaml library stops at its alias count, as
      // go-yaml stops at its aliasing ratio; kubectl says so in go-yaml's words.
      if (!/Excessive alias count/.test((e as Error).message)) throw e;
      throw new KubectlError(`error parsing ${src}: error converting YAML to JSON: yaml: document contains excessive aliasing`);
    }
    if (obj === null || obj === undefined) continue;
    if (typeof obj !== "object") throw new KubectlError(`error validating "${src}": error validating data: invalid object to validate; if you choose to ignore these errors, turn validation off with --validate=false`);
    yield obj;
  }
}

function manifest(obj: ManifestObject, src: string, ctx: KubectlContext): Manifest {
  // kubectl decodes metadata into ObjectMeta first: a scalar or a list there is a JSON type error.
  const meta = obj.metadata as unknown;
  if (meta !== undefined && meta !== null && (typeof meta !== "object" || Array.isArray(meta))) {
    const t = Array.isArray(meta) ? "array" : typeof meta === "boolean" ? "bool" : typeof meta;
    throw new KubectlError(`unable to decode "${src}": json: cannot unmarshal ${t} into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta`);
  }
  if (!obj.apiVersion || !obj.kind) {
    const missing = !obj.apiVersion ? "apiVersion" : "kind";
    throw new KubectlError(`error validating "${src}": error validating data: ${missing} not set; if you choose to ignore these errors, turn validation off with --validate=false`);
  }
  const info = lookupKind(obj.apiVersion, obj.kind);
  if (!info || !ctx.cluster.api.isServed(info)) {
    throw new KubectlError(`resource mapping not found for name: "${obj.metadata?.name ?? ""}" namespace: "${obj.metadata?.namespace ?? ""}" from "${src}": no matches for kind "${obj.kind}" in version "${obj.apiVersion}"\nensure CRDs are installed first`);
  }
  return { info, obj, source: src };
}

/**
 * -l for objects read from files (the builder's LabelSelectorParam): checked before any file is
 * read, then only the objects it selects are visited.
 */
export function fileSelector(selector: string | undefined): Selector | undefined {
  if (!selector) return undefined;
  try {
    return parseSelector(selector);
  } catch (e) {
    throw new KubectlError(`the provided selector ${JSON.stringify(selector)} is not valid: ${(e as Error).message}`);
  }
}
