/**
 * The build workflow application repositories copy (`dist/workflows/build.yaml`): Forgejo Actions, on the runner of
 * `ForgejoRunner`. It builds with rootless BuildKit, pushes by digest, signs by digest with a key by reference, and
 * never touches a manifest: promotion is Argo CD Image Updater's (ADR 0001 Part B, "CI does build + push + sign only").
 */
import * as YAML from 'yaml';

/** A step of the job: a shell script (the runner's `host` jobs have no node, so no JavaScript actions). */
export interface BuildWorkflowStep {
  readonly name: string;
  readonly id?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly run: string;
}

/** The workflow, as Forgejo Actions reads it (only the keys it uses). */
export interface BuildWorkflow {
  readonly name: string;
  readonly on: { readonly push: { readonly branches: readonly string[]; readonly tags: readonly string[] } };
  readonly jobs: {
    readonly build: {
      readonly 'runs-on': string;
      readonly 'timeout-minutes': number;
      readonly 'defaults': { readonly run: { readonly shell: string } };
      readonly 'env': Readonly<Record<string, string>>;
      readonly 'steps': readonly BuildWorkflowStep[];
    };
  };
}

/** Options of `buildWorkflow`. */
export interface BuildWorkflowOptions {
  /** The runner label the job runs on (`ForgejoRunner.label`). */
  readonly runnerLabel: string;
  /** The registry's external push name (host and optional port); images are `<pushHost>/<owner>/<repository>`. */
  readonly pushHost: string;
  /** Tag of the registry cache next to each image. */
  readonly cacheTag: string;
  /** The Forgejo Actions secrets the workflow reads, by role. */
  readonly secrets: {
    readonly cosignKey: string;
    readonly cosignPassword: string;
    readonly registryUsername: string;
    readonly registryToken: string;
  };
  /**
   * Branches whose pushes build an image.
   * @default ['main']
   */
  readonly branches?: readonly string[];
}

/** The step ids other steps read outputs from. */
export const BUILD_STEP_IDS = { build: 'build' } as const;

/** `run:` text from lines, ending with a newline (a YAML block scalar). */
const script = (...lines: string[]) => `${lines.join('\n')}\n`;
/** A secret as an expression, only ever placed in `env:`, never spliced into a script. */
const secret = (name: string) => `\${{ secrets.${name} }}`;

/**
 * The build workflow. Contexts reach the scripts through `env:` only, so no ref name or secret can inject shell. The
 * steps:
 *
 * 1. check out the pushed commit with git (the job token as basic auth, as actions/checkout sends it);
 * 2. write a registry login for the push name into a job-private `DOCKER_CONFIG` (buildctl and cosign both read it);
 * 3. build with `buildctl` against the pod's rootless daemon (`BUILDKIT_HOST`), push `<image>:<sha>` and
 *    `<image>:<ref name>`, with the cache in the registry (`--export-cache type=registry,...,mode=max`, moby/buildkit
 *    v0.32.2 README "Registry (push image and cache separately)"), and read the digest from `--metadata-file`
 *    (`containerimage.digest`, same README, "Metadata");
 * 4. `cosign sign` the digest (`<image>@sha256:...`, never a tag) with the key from an Actions secret (`--key
 *    env://...`) and nothing uploaded to a transparency log. cosign v3.1.2 refuses `--tlog-upload=false` while
 *    `--use-signing-config` is on, and that flag defaults to true (cmd/cosign/cli/signcommon/common.go:445-447), so
 *    both are given; with a key and no signing config cosign fetches no Sigstore trust root either (same file,
 *    :452-468). Keyless signing is out: Sigstore's Fulcio does not trust Forgejo Actions' OIDC issuer.
 */
export function buildWorkflow(options: BuildWorkflowOptions): BuildWorkflow {
  const steps: BuildWorkflowStep[] = [
    {
      name: 'Check out the pushed commit',
      env: { TOKEN: '${{ secrets.GITHUB_TOKEN }}', SERVER_URL: '${{ github.server_url }}', REPOSITORY: '${{ github.repository }}', SHA: '${{ github.sha }}' },
      run: script(
        // The runner's FORGEJO_URL (its in-cluster address) avoids the hairpin through the ingress; elsewhere the server URL.
        'url="${FORGEJO_URL:-$SERVER_URL}/$REPOSITORY.git"',
        'auth=$(printf \'x-access-token:%s\' "$TOKEN" | base64 | tr -d \'\\n\')',
        'git init -q .',
        'git -c http.extraHeader="Authorization: basic $auth" fetch -q --depth 1 "$url" "$SHA"',
        'git checkout -q --detach FETCH_HEAD',
      ),
    },
    {
      name: 'Log in to the registry (a job-private DOCKER_CONFIG)',
      env: { REGISTRY_USERNAME: secret(options.secrets.registryUsername), REGISTRY_TOKEN: secret(options.secrets.registryToken) },
      run: script(
        'mkdir -p "$RUNNER_TEMP/docker"',
        'auth=$(printf \'%s:%s\' "$REGISTRY_USERNAME" "$REGISTRY_TOKEN" | base64 | tr -d \'\\n\')',
        'printf \'{"auths":{"%s":{"auth":"%s"}}}\\n\' "$REGISTRY" "$auth" > "$RUNNER_TEMP/docker/config.json"',
        'echo "DOCKER_CONFIG=$RUNNER_TEMP/docker" >> "$GITHUB_ENV"',
      ),
    },
    {
      name: 'Build and push by digest with rootless BuildKit, cache in the registry',
      id: BUILD_STEP_IDS.build,
      env: { REPOSITORY: '${{ github.repository }}', SHA: '${{ github.sha }}', REF_NAME: '${{ github.ref_name }}' },
      run: script(
        // Registry repository names are lower-case; the image is named after the repository (README, "Adopting the delivery flow").
        'IMAGE="$REGISTRY/$(printf \'%s\' "$REPOSITORY" | tr \'[:upper:]\' \'[:lower:]\')"',
        'buildctl build --frontend dockerfile.v0 --local context=. --local dockerfile=. \\',
        '  --output "type=image,\\"name=$IMAGE:$SHA,$IMAGE:$REF_NAME\\",push=true" \\',
        '  --export-cache "type=registry,ref=$IMAGE:$CACHE_TAG,mode=max" \\',
        '  --import-cache "type=registry,ref=$IMAGE:$CACHE_TAG" \\',
        '  --metadata-file "$RUNNER_TEMP/build-metadata.json"',
        'digest=$(grep -o \'"containerimage.digest": *"sha256:[0-9a-f]\\{64\\}"\' "$RUNNER_TEMP/build-metadata.json" | grep -o \'sha256:[0-9a-f]\\{64\\}\')',
        'if [ -z "$digest" ]; then echo "no containerimage.digest in the build metadata" >&2; exit 1; fi',
        'echo "image=$IMAGE" >> "$GITHUB_OUTPUT"',
        'echo "digest=$digest" >> "$GITHUB_OUTPUT"',
        'echo "Pushed $IMAGE@$digest" >> "$GITHUB_STEP_SUMMARY"',
      ),
    },
    {
      name: 'Sign the digest with cosign (key by reference, no transparency log)',
      env: {
        COSIGN_PRIVATE_KEY: secret(options.secrets.cosignKey),
        COSIGN_PASSWORD: secret(options.secrets.cosignPassword),
        IMAGE: `\${{ steps.${BUILD_STEP_IDS.build}.outputs.image }}`,
        DIGEST: `\${{ steps.${BUILD_STEP_IDS.build}.outputs.digest }}`,
      },
      run: script('cosign sign --yes --use-signing-config=false --tlog-upload=false --key env://COSIGN_PRIVATE_KEY "$IMAGE@$DIGEST"'),
    },
  ];
  return {
    name: 'build',
    on: { push: { branches: [...(options.branches ?? ['main'])], tags: ['v*'] } },
    jobs: {
      build: {
        'runs-on': options.runnerLabel,
        'timeout-minutes': 60,
        // `shell: bash` runs `bash --noprofile --norc -eo pipefail {0}` (forgejo/runner act/runner/step_run.go).
        'defaults': { run: { shell: 'bash' } },
        'env': { REGISTRY: options.pushHost, CACHE_TAG: options.cacheTag },
        'steps': steps,
      },
    },
  };
}

/** Every shell line of the workflow, for checks such as "no step edits a manifest". */
export function workflowScripts(workflow: BuildWorkflow): string[] {
  return workflow.jobs.build.steps.map((s) => s.run);
}

/**
 * The workflow as the file application repositories copy to `.forgejo/workflows/build.yaml`, with a header that says
 * what it needs.
 */
export function renderBuildWorkflow(options: BuildWorkflowOptions): string {
  const s = options.secrets;
  const header = [
    'Build, push by digest and sign: the CI half of the homelab\'s delivery flow (ADR 0001 Part B).',
    'Copy to .forgejo/workflows/build.yaml of an application repository; see the homelab README,',
    '"Adopting the delivery flow in an application repository". Needs the Forgejo Actions secrets',
    `${s.registryUsername}, ${s.registryToken} (a token with write:package), ${s.cosignKey} and ${s.cosignPassword}.`,
    'It never edits a manifest: Argo CD Image Updater writes the new digest to git.',
    'Generated by `npm run synth` from lib/constructs/delivery/build-workflow.ts: do not edit the copy in dist/.',
  ].map((l) => `# ${l}`).join('\n');
  return `${header}\n${YAML.stringify(buildWorkflow(options), { lineWidth: 0 })}`;
}
