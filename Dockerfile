# fitgate as a container, for GitLab CI, Argo Workflows, Tekton and Flux / Argo CD
# pre-merge jobs: `docker run -i IMAGE check - --snapshot snapshot.json` reads rendered
# manifests on standard input. kustomize and helm are not in the image: render in the job,
# or in a step before it, and pipe or pass the output.
#
# The base image is pinned by tag. To pin its digest as well, replace the tag with
# python:3.12-slim-bookworm@sha256:<digest> as `docker buildx imagetools inspect` prints it.

FROM python:3.12-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
# A C compiler for fitgate's two compiled parts (a kubectl List's indentation dropped before
# it is decoded, its pods counted by node); only their result reaches the image. Debian's
# current gcc: the parts need nothing of a particular version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/fitgate
ENV PATH=/opt/fitgate/bin:$PATH
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY gate ./gate
# The same install CI runs in a fresh virtual environment (.ci/run).
RUN pip install --no-cache-dir .

FROM python:3.12-slim-bookworm
LABEL org.opencontainers.image.title="fitgate" \
      org.opencontainers.image.description="Would this pod land on the nodes that exist right now? kube-scheduler's filters over rendered manifests, without creating anything." \
      org.opencontainers.image.licenses="Apache-2.0"
ENV PATH=/opt/fitgate/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
COPY --from=build /opt/fitgate /opt/fitgate
RUN useradd --no-log-init --create-home --uid 10001 --user-group fitgate
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
WORKDIR /repo
ENTRYPOINT ["fitgate"]
CMD ["--help"]
