# The project's image, git-remote-walrus:<package version>: the GitOps controller (deploy/controller.yaml) and the
# tool steps of build and run pods (git walrus checkout, artifact pack|fetch) all run `git-walrus` from it.
# Not built or tested here (no container runtime on the development machine; the test node maps this image to the
# checkout's bin/): build it with `docker build -t git-remote-walrus:0.1.0 .` and push it where your nodes pull.
FROM node:22-bookworm-slim AS build
WORKDIR /opt/git-remote-walrus
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY src ./src
COPY bin ./bin
COPY contracts ./contracts
COPY scripts/build.ts ./scripts/
# The bundle holds no development dependency, so it stays current after the prune (which rewrites
# node_modules/.package-lock.json, the installed dependencies bin/run-node checks the build against).
RUN npm run build && npm prune --omit=dev && touch dist/.built

FROM node:22-bookworm-slim
# git for checkout and the remote helper; ca-certificates for the networks' HTTPS endpoints.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/git-remote-walrus
COPY --from=build /opt/git-remote-walrus ./
RUN ln -s /opt/git-remote-walrus/bin/git-walrus /usr/local/bin/git-walrus \
 && ln -s /opt/git-remote-walrus/bin/git-remote-walrus /usr/local/bin/git-remote-walrus
USER 1000:1000
ENV HOME=/tmp
ENTRYPOINT []
CMD ["git-walrus", "controller"]
