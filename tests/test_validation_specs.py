"""What the API server refuses in a workload's own spec beside its template (kubernetes
v1.34 ``pkg/apis/apps/validation/validation.go`` and ``pkg/apis/batch/validation/
validation.go``), each refusal an ERROR in the API server's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gate.k8s.podlabels import stand_in_uid
from gate.k8s.podnames import controller_object
from tests.test_api_validation import (
    Edit,
    controller,
    deployment,
    invalid,
    job,
    reason,
    spec,
    then,
)

UID = stand_in_uid("Job", "j")
"""The UID generateSelector gives the Job ``j``: the API server's own, here a stand-in."""

# (id, the valid workload, the edit that breaks it, the API server's field errors)
REFUSED: list[tuple[str, Callable[[], dict[str, Any]], Edit, str]] = [
    # ValidateDeploymentStrategy: a type of neither kind, the internal struct marshalled
    ("a Deployment of an unknown strategy type is refused", deployment,
     spec(strategy={"type": "BlueGreen"}),
     'spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: '
     'supported values: "Recreate", "RollingUpdate"'),
    ("a Deployment of an unknown strategy type prints its rolling update as Go fields",
     deployment, spec(strategy={"type": "Canary", "rollingUpdate": {"maxSurge": "50%"}}),
     'spec.strategy: Unsupported value: {"Type":"Canary","RollingUpdate":{"MaxUnavailable":0,'
     '"MaxSurge":"50%"}}: supported values: "Recreate", "RollingUpdate"'),
    # ValidateDeploymentSpec after the strategy
    ("a Deployment of a negative minReadySeconds is refused", deployment,
     spec(minReadySeconds=-1),
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
    ("a Deployment of a negative revisionHistoryLimit is refused", deployment,
     spec(revisionHistoryLimit=-2),
     "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0"),
    ("a Deployment whose progress deadline is not above minReadySeconds is refused",
     deployment, spec(minReadySeconds=30, progressDeadlineSeconds=30),
     "spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds"),
    ("a Deployment whose minReadySeconds reaches the default progress deadline is refused",
     deployment, spec(minReadySeconds=600),
     "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"),
    ("a Deployment of a negative progress deadline is refused twice", deployment,
     spec(progressDeadlineSeconds=-1),
     "[spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0, "
     "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than minReadySeconds]"),
    ("a Deployment's strategy is refused before its counts", deployment,
     spec(strategy={"type": "Recreate", "rollingUpdate": {}}, minReadySeconds=-1),
     "[spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
     "'Recreate', spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]"),
    # ValidateDaemonSetSpec: minReadySeconds, the update strategy, revisionHistoryLimit
    ("a DaemonSet of an unknown update strategy type is refused",
     lambda: deployment("DaemonSet"), spec(updateStrategy={"type": "Recreate"}),
     'spec.updateStrategy: Unsupported value: {"Type":"Recreate","RollingUpdate":null}: '
     'supported values: "RollingUpdate", "OnDelete"'),
    ("a DaemonSet's minReadySeconds is refused before its strategy and history limit",
     lambda: deployment("DaemonSet"),
     spec(minReadySeconds=-1, updateStrategy={"type": "Surge"}, revisionHistoryLimit=-1),
     "[spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, "
     'spec.updateStrategy: Unsupported value: {"Type":"Surge","RollingUpdate":null}: '
     'supported values: "RollingUpdate", "OnDelete", spec.revisionHistoryLimit: Invalid '
     "value: -1: must be greater than or equal to 0]"),
    # ValidateStatefulSetSpec, in its order
    ("a StatefulSet of an unknown update strategy type is refused",
     lambda: deployment("StatefulSet"), spec(updateStrategy={"type": "Recreate"}),
     'spec.updateStrategy: Invalid value: {"Type":"Recreate","RollingUpdate":null}: must be '
     "'RollingUpdate' or 'OnDelete'"),
    ("a StatefulSet updated OnDelete with a rolling update is refused",
     lambda: deployment("StatefulSet"),
     spec(updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 2}}),
     'spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":2,"MaxUnavailable":null}: '
     "only allowed for updateStrategy 'RollingUpdate'"),
    ("a StatefulSet of a negative partition is refused", lambda: deployment("StatefulSet"),
     spec(updateStrategy={"rollingUpdate": {"partition": -1}}),
     "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or "
     "equal to 0"),
    ("a StatefulSet keeping its claims neither Retain nor Delete is refused",
     lambda: deployment("StatefulSet"),
     spec(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep", "whenScaled": "Drop"}),
     "[spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": "
     'supported values: "Retain", "Delete", spec.persistentVolumeClaimRetentionPolicy.'
     'whenScaled: Unsupported value: "Drop": supported values: "Retain", "Delete"]'),
    ("a StatefulSet of a negative first ordinal is refused before its selector",
     lambda: deployment("StatefulSet"),
     spec(ordinals={"start": -1}, minReadySeconds=-3, selector={}),
     "[spec.minReadySeconds: Invalid value: -3: must be greater than or equal to 0, "
     "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0, "
     "spec.selector: Invalid value: {}: empty selector is invalid for statefulset]"),
    # a negative count (gate.inputs.counts) is listed among the other field errors
    ("a Deployment's negative replicas follow its name's error", deployment,
     then(spec(replicas=-1), lambda body: body["metadata"].update(name="web_1")),
     '[metadata.name: Invalid value: "web_1": a lowercase RFC 1123 subdomain must consist of '
     "lower case alphanumeric characters, '-' or '.', and must start and end with an "
     "alphanumeric character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.replicas: "
     "Invalid value: -1: must be greater than or equal to 0]"),
    ("a ReplicaSet's negative replicas come before its minReadySeconds",
     lambda: deployment("ReplicaSet"), spec(replicas=-1, minReadySeconds=-2),
     "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, "
     "spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0]"),
    ("a StatefulSet's negative replicas come after its claim policy, before its ordinals",
     lambda: deployment("StatefulSet"),
     spec(replicas=-1, ordinals={"start": -1},
          persistentVolumeClaimRetentionPolicy={"whenScaled": "Keep"}),
     '[spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": '
     'supported values: "Retain", "Delete", spec.replicas: Invalid value: -1: must be greater '
     "than or equal to 0, spec.ordinals.start: Invalid value: -1: must be greater than or "
     "equal to 0]"),
    ("a ReplicationController's negative replicas come after its minReadySeconds", controller,
     spec(replicas=-1, minReadySeconds=-1),
     "[spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, "
     "spec.replicas: Invalid value: -1: must be greater than or equal to 0]"),
    ("a Job's negative parallelism is listed before its other errors", job,
     spec(parallelism=-1, backoffLimit=-1),
     "[spec.parallelism: Invalid value: -1: must be greater than or equal to 0, "
     "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0]"),
    # ValidateReplicaSetSpec and ValidateReplicationControllerSpec: before the selector
    ("a ReplicaSet of a negative minReadySeconds is refused before its selector",
     lambda: deployment("ReplicaSet"), spec(minReadySeconds=-1, selector={}),
     "[spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, "
     "spec.selector: Invalid value: {}: empty selector is invalid for deployment]"),
    ("a ReplicationController of a negative minReadySeconds is refused", controller,
     spec(minReadySeconds=-5),
     "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0"),
    # batch validateJobSpec: managedBy (IsDomainPrefixedPath), after the counts
    ("a Job managed by a name without a domain is refused", job, spec(managedBy="kueue"),
     'spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as '
     '"acme.io/foo")'),
    ("a Job managed by an empty name is refused", job, spec(managedBy=""),
     "spec.managedBy: Required value"),
    ("a Job managed by a path of a bad domain and character is refused", job,
     spec(managedBy="Kueue.x-k8s.io/a b"),
     '[spec.managedBy: Invalid value: "Kueue.x-k8s.io": a lowercase RFC 1123 subdomain must '
     "consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
     "an alphanumeric character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.managedBy: "
     'Invalid value: "a b": Invalid path (regex used for validation is '
     "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')]"),
    ("a Job managed by a name over 63 bytes is too long", job,
     spec(managedBy="example.com/" + "m" * 52),
     "spec.managedBy: Too long: may not be more than 63 bytes"),
    ("a Job's negative count is refused before its managedBy", job,
     spec(backoffLimit=-1, managedBy="x"),
     "[spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0, "
     'spec.managedBy: Invalid value: "x": must be a domain-prefixed path (such as '
     '"acme.io/foo")]'),
    # validatePodFailurePolicy and validatePodFailurePolicyRule
    ("a pod failure rule without an action is refused", job,
     spec(podFailurePolicy={"rules": [{"onExitCodes": {"operator": "In", "values": [1]}}]}),
     'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" '
     '"FailIndex" "FailJob" "Ignore"]'),
    ("a pod failure rule of an unknown action is refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Retry", "onExitCodes": {"operator": "In", "values": [1]}}]}),
     'spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: '
     '"Count", "FailIndex", "FailJob", "Ignore"'),
    ("a FailIndex rule without a backoff per index is refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}]}),
     'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the '
     "backoffLimitPerIndex to be set"),
    ("a pod failure rule of neither requirement is refused", job,
     spec(podFailurePolicy={"rules": [{"action": "Ignore"}]}),
     "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and "
     "OnPodConditions is required"),
    ("a pod failure rule of both requirements is refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [0]},
          "onPodConditions": [{"type": "DisruptionTarget"}]}]}),
     "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and "
     "OnPodConditions is not supported"),
    # validatePodFailurePolicyRuleOnExitCodes (upstream's TestValidateJob cases)
    ("exit code 0 with In is refused, as are duplicates and disorder", job,
     spec(podFailurePolicy={"rules": [
         {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0, 5, 5, 2]}}]}),
     "[spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 "
     "for the In operator, spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate "
     "value: 5, spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,5,5,2]: "
     "must be ordered]"),
    ("exit codes without an operator, values or a known container are refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Count", "onExitCodes": {"containerName": "main", "values": []}}]}),
     '[spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: '
     '["In" "NotIn"], spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid '
     'value: "main": must be one of the container or initContainer names in the pod '
     "template, spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at "
     "least one value is required]"),
    ("exit codes of an unknown operator are refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Count", "onExitCodes": {"operator": "Equal", "values": [3]}}]}),
     'spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Equal": '
     'supported values: "In", "NotIn"'),
    ("more than 20 pod failure rules are too many", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Count", "onExitCodes": {"operator": "In", "values": [i + 1]}}
         for i in range(21)]}),
     "spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items"),
    # validatePodFailurePolicyRuleOnPodConditions
    ("a pod condition of a bad type and status is refused", job,
     spec(podFailurePolicy={"rules": [
         {"action": "Ignore", "onPodConditions": [{"type": "Bad Type", "status": "Maybe"}]}]}),
     '[spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "Bad Type": '
     "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
     "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
     "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
     'spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe": '
     'supported values: "False", "True", "Unknown"]'),
    # validateJobSpec's successPolicy and validateSuccessPolicyRule
    ("a success policy of a NonIndexed Job is refused, printed as its struct", job,
     spec(successPolicy={"rules": [{"succeededCount": 1}]}),
     'spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,'
     '"SucceededCount":1}]}: requires indexed completion mode'),
    ("a success policy without rules is refused", job,
     spec(completionMode="Indexed", completions=3, successPolicy={"rules": []}),
     "spec.successPolicy.rules: Required value: at least one rules must be specified when "
     "the successPolicy is specified"),
    ("a success rule of neither indexes nor a count is refused", job,
     spec(completionMode="Indexed", completions=3, successPolicy={"rules": [{}]}),
     "spec.successPolicy.rules[0]: Required value: at least one of succeededCount or "
     "succeededIndexes must be specified"),
    ("succeeded indexes past the completions are refused", job,
     spec(completionMode="Indexed", completions=3,
          successPolicy={"rules": [{"succeededIndexes": "0-3"}]}),
     'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-3": error parsing '
     'succeededIndexes: too large index: "3"'),
    ("succeeded indexes out of order are refused", job,
     spec(completionMode="Indexed", completions=9,
          successPolicy={"rules": [{"succeededIndexes": "4-6,2"}]}),
     'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "4-6,2": error parsing '
     "succeededIndexes: non-increasing order, previous: 6, current: 2"),
    ("a succeeded index that is no number is refused", job,
     spec(completionMode="Indexed", completions=9,
          successPolicy={"rules": [{"succeededIndexes": "1-x"}]}),
     'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1-x": error parsing '
     'succeededIndexes: cannot convert string to integer for index: "x"'),
    ("a succeeded count above the completions and the indexes is refused twice", job,
     spec(completionMode="Indexed", completions=3,
          successPolicy={"rules": [{"succeededIndexes": "0-1", "succeededCount": 4}]}),
     "[spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or "
     "equal to 3 (the number of specified completions), spec.successPolicy.rules[0]."
     "succeededCount: Invalid value: 4: must be less than or equal to 2 (the number of "
     "indexes in the specified succeededIndexes field)]"),
    ("a success rule is held to the completions SetDefaults_Job gives (1)", job,
     spec(completionMode="Indexed", successPolicy={"rules": [{"succeededCount": 2}]}),
     "spec.successPolicy.rules[0].succeededCount: Invalid value: 2: must be less than or "
     "equal to 1 (the number of specified completions)"),
    # generateSelector (pkg/registry/batch/job/strategy.go) labels the template with the
    # Job's name before ValidatePodTemplateSpec checks its labels
    ("a Job whose name is too long for its pods' job-name label is refused", job,
     lambda body: body["metadata"].update(name="j" * 64),
     f'spec.template.labels: Invalid value: "{"j" * 64}": must be no more than 63 '
     "characters"),
    # validateGeneratedSelector (RequirePrefixedLabels), after the metadata, before the spec:
    # the labels and selector generateSelector made (TestValidateJob's "spec.template.metadata.
    # labels[job-name]" and "spec.selector: ... `selector` not auto-generated" rows)
    ("a Job's template labelled with another job name is refused", job,
     lambda body: body["spec"]["template"].update(metadata={"labels": {"job-name": "other"}}),
     "spec.template.metadata.labels[job-name]: Invalid value: "
     f'{{"batch.kubernetes.io/controller-uid":"{UID}","batch.kubernetes.io/job-name":"j",'
     f'"controller-uid":"{UID}","job-name":"other"}}: must be \'j\''),
    ("a Job's template of its own controller uids is refused, legacy first, and unselected",
     job, lambda body: body["spec"]["template"].update(metadata={"labels": {
         "batch.kubernetes.io/controller-uid": "1", "controller-uid": "2"}}),
     '[spec.template.metadata.labels[controller-uid]: Invalid value: {"batch.kubernetes.io/'
     'controller-uid":"1","batch.kubernetes.io/job-name":"j","controller-uid":"2","job-name":'
     f'"j"}}: must be \'{UID}\', spec.template.metadata.labels[batch.kubernetes.io/controller-'
     'uid]: Invalid value: {"batch.kubernetes.io/controller-uid":"1","batch.kubernetes.io/job-'
     f'name":"j","controller-uid":"2","job-name":"j"}}: must be \'{UID}\', spec.template.'
     'metadata.labels: Invalid value: {"batch.kubernetes.io/controller-uid":"1","batch.'
     'kubernetes.io/job-name":"j","controller-uid":"2","job-name":"j"}: `selector` does not '
     "match template `labels`]"),
    ("a Job's selector written without manualSelector is not auto-generated", job,
     then(spec(selector={"matchLabels": {"app": "x"}}),
          lambda body: body["spec"]["template"].update(metadata={"labels": {"app": "x"}})),
     'spec.selector: Invalid value: {"matchLabels":{"app":"x","batch.kubernetes.io/'
     f'controller-uid":"{UID}"}}}}: `selector` not auto-generated'),
    ("a Job's written selector that misses its template is refused last too", job,
     spec(selector={"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
     '[spec.selector: Invalid value: {"matchLabels":{"batch.kubernetes.io/controller-uid":'
     f'"{UID}"}},"matchExpressions":[{{"key":"tier","operator":"Exists"}}]}}: `selector` not '
     "auto-generated, spec.template.metadata.labels: Invalid value: {\"batch.kubernetes.io/"
     f'controller-uid":"{UID}","batch.kubernetes.io/job-name":"j","controller-uid":"{UID}",'
     '"job-name":"j"}: `selector` does not match template `labels`]'),
    # validateCronJobSpec, in its order
    ("a CronJob of four schedule fields is refused", lambda: job("CronJob"),
     spec(schedule="*/5 * * *"),
     'spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields, found 4: '
     "[*/5 * * *]"),
    ("a CronJob of a weekday past 6 is refused", lambda: job("CronJob"),
     spec(schedule="0 3 * * 7"),
     'spec.schedule: Invalid value: "0 3 * * 7": end of range (7) above maximum (6): 7'),
    ("a CronJob of a schedule word it does not know is refused", lambda: job("CronJob"),
     spec(schedule="@fortnightly"),
     'spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly'),
    ("a CronJob of a month that is no number or name is refused", lambda: job("CronJob"),
     spec(schedule="0 0 1 jann *"),
     'spec.schedule: Invalid value: "0 0 1 jann *": failed to parse int from jann: '
     'strconv.Atoi: parsing "jann": invalid syntax'),
    ("a CronJob of an @every without a unit is refused", lambda: job("CronJob"),
     spec(schedule="@every 5"),
     'spec.schedule: Invalid value: "@every 5": failed to parse duration @every 5: time: '
     'missing unit in duration "5"'),
    ("a CronJob of a time zone in its schedule is refused", lambda: job("CronJob"),
     spec(schedule="CRON_TZ=UTC 0 0 * * *"),
     'spec.schedule: Invalid value: "CRON_TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in '
     "schedule, use timeZone field instead"),
    ("a CronJob of a time zone and no schedule fields is refused as the parser panics",
     lambda: job("CronJob"), spec(schedule="TZ=UTC"),
     '[spec.schedule: Invalid value: "TZ=UTC": invalid schedule format: runtime error: slice '
     'bounds out of range [:-1], spec.schedule: Invalid value: "TZ=UTC": cannot use TZ or '
     "CRON_TZ in schedule, use timeZone field instead]"),
    ("a CronJob of an empty schedule is refused", lambda: job("CronJob"), spec(schedule=""),
     "spec.schedule: Required value"),
    ("a CronJob of an empty time zone is refused", lambda: job("CronJob"), spec(timeZone=""),
     'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string'),
    ("a CronJob of a time zone with digits in a long part is refused", lambda: job("CronJob"),
     spec(timeZone="America/Argentina_Buenos_Aires"),
     'spec.timeZone: Invalid value: "America/Argentina_Buenos_Aires": unknown time zone '
     "America/Argentina_Buenos_Aires"),
    ("a CronJob in the Local time zone is refused", lambda: job("CronJob"),
     spec(timeZone="Local"),
     'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as '
     "defined in https://www.iana.org/time-zones"),
    ("a CronJob of an unknown concurrency policy is refused", lambda: job("CronJob"),
     spec(concurrencyPolicy="Queue"),
     'spec.concurrencyPolicy: Unsupported value: "Queue": supported values: "Allow", '
     '"Forbid", "Replace"'),
    ("a CronJob's schedule and deadline are refused before its jobs, its limits after",
     lambda: job("CronJob"),
     spec(schedule="61 * * * *", startingDeadlineSeconds=-1, successfulJobsHistoryLimit=-1,
          failedJobsHistoryLimit=-2,
          jobTemplate={"spec": {"backoffLimit": -1, "template": {"spec": {
              "restartPolicy": "Never", "containers": [{"name": "a", "image": "a"}]}}}}),
     '[spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61, '
     "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0, "
     "spec.jobTemplate.spec.backoffLimit: Invalid value: -1: must be greater than or equal "
     "to 0, spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or "
     "equal to 0, spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or "
     "equal to 0]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "edit", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_workload_spec_the_api_server_refuses_is_an_error_in_its_words(
    build: Callable[[], dict[str, Any]], edit: Edit, expected: str
) -> None:
    body = build()
    assert reason(body) is None  # the workload before the edit is taken
    edit(body)
    assert reason(body) == invalid(body, expected)


# (id, the workload, an edit the API server takes)
TAKEN: list[tuple[str, Callable[[], dict[str, Any]], Edit]] = [
    ("a Deployment of a progress deadline above minReadySeconds is taken", deployment,
     spec(minReadySeconds=599, revisionHistoryLimit=0)),
    ("a Deployment of an empty strategy type is defaulted to RollingUpdate", deployment,
     spec(strategy={"type": ""})),
    ("a DaemonSet updated OnDelete is taken", lambda: deployment("DaemonSet"),
     spec(updateStrategy={"type": "OnDelete"})),
    ("a StatefulSet deleting its claims, from ordinal 5, partitioned, is taken",
     lambda: deployment("StatefulSet"),
     then(spec(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete"}),
          spec(ordinals={"start": 5}, updateStrategy={"rollingUpdate": {"partition": 1}}))),
    ("a StatefulSet updated OnDelete is taken", lambda: deployment("StatefulSet"),
     spec(updateStrategy={"type": "OnDelete"})),
    ("a Job managed by a domain-prefixed path is taken", job,
     spec(managedBy="kueue.x-k8s.io/multikueue")),
    ("a Job of a whole pod failure policy is taken", job,
     spec(completionMode="Indexed", completions=4, backoffLimitPerIndex=1,
          podFailurePolicy={"rules": [
              {"action": "FailIndex", "onExitCodes": {"containerName": "app",
                                                      "operator": "In", "values": [1, 42]}},
              {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
              {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [0]}}]})),
    ("an Indexed Job of a success policy is taken", job,
     spec(completionMode="Indexed", completions=10, successPolicy={"rules": [
         {"succeededIndexes": "0-2,5,7-9", "succeededCount": 7}, {"succeededCount": 10}]})),
    ("a Job whose template holds the labels generateSelector makes is taken", job,
     lambda body: body["spec"]["template"].update(metadata={"labels": {
         "job-name": "j", "batch.kubernetes.io/job-name": "j",
         "controller-uid": UID, "batch.kubernetes.io/controller-uid": UID}})),
    ("a Job named 63 characters is taken (its job-name labels fit)", job,
     lambda body: body["metadata"].update(name="j" * 63)),
    ("a Job of a manual selector is not labelled with its name", job,
     then(lambda body: body["metadata"].update(name="j" * 70),
          spec(manualSelector=True, selector={"matchLabels": {"app": "x"}}),
          lambda body: body["spec"]["template"].update(metadata={"labels": {"app": "x"}}))),
    ("a CronJob of a whole schedule, time zone and policy is taken", lambda: job("CronJob"),
     spec(schedule="*/15 9-17/2 1,15 JAN-Jun mon-FRI", timeZone="Europe/Paris",
          concurrencyPolicy="Forbid", startingDeadlineSeconds=0,
          successfulJobsHistoryLimit=0, failedJobsHistoryLimit=0)),
    ("a CronJob running @every hour and a half is taken", lambda: job("CronJob"),
     spec(schedule="@every 1h30m", timeZone="UTC")),
]  # fmt: skip


@pytest.mark.parametrize(("build", "edit"), [t[1:] for t in TAKEN], ids=[t[0] for t in TAKEN])
def test_a_workload_spec_the_api_server_takes_is_a_workload(
    build: Callable[[], dict[str, Any]], edit: Edit
) -> None:
    body = build()
    edit(body)
    assert reason(body) is None


def test_the_job_helper_builds_a_job_the_api_server_takes() -> None:
    assert reason(job()) is None


CRON_JOB = (controller_object("CronJob", "c") or ("", ""))[1]
"""The Job the CronJob ``c`` creates, ``<cronjob>-<scheduled time in minutes>``."""
CRON_UID = stand_in_uid("Job", CRON_JOB)


def _cron_labels(**labels: str) -> Edit:
    """Label the pod template of the CronJob's job template."""
    return lambda body: body["spec"]["jobTemplate"]["spec"]["template"].update(
        metadata={"labels": labels}
    )


def _generated(**written: str) -> str:
    labels = {
        "batch.kubernetes.io/controller-uid": CRON_UID,
        "batch.kubernetes.io/job-name": CRON_JOB,
        "controller-uid": CRON_UID,
        "job-name": CRON_JOB,
    } | written
    return "{" + ",".join(f'"{k}":"{v}"' for k, v in sorted(labels.items())) + "}"


# The CronJob is accepted (ValidateJobTemplateSpec leaves the pod template's labels alone),
# but each Job its controller creates (cronjob_controllerv2.go getJobFromTemplate2: the job
# template's spec, named getJobName) is refused by validateGeneratedSelector
# (pkg/apis/batch/validation/validation.go, TestValidateJob's "spec.template.metadata.
# labels[job-name]" rows).
# (id, the edit of the CronJob, the errors of its Job)
CRON_JOBS_REFUSED: list[tuple[str, Edit, str]] = [
    ("a CronJob whose pods are labelled with another job name makes Jobs that are refused",
     _cron_labels(**{"job-name": "c"}),
     f"spec.template.metadata.labels[job-name]: Invalid value: {_generated(**{'job-name': 'c'})}"
     f": must be '{CRON_JOB}'"),
    ("a CronJob whose pods carry another prefixed job name makes Jobs that are refused",
     _cron_labels(**{"batch.kubernetes.io/job-name": "nightly"}),
     "spec.template.metadata.labels[batch.kubernetes.io/job-name]: Invalid value: "
     f"{_generated(**{'batch.kubernetes.io/job-name': 'nightly'})}: must be '{CRON_JOB}'"),
    ("a CronJob whose pods carry a controller uid makes Jobs that are refused",
     _cron_labels(**{"controller-uid": "1"}),
     f"spec.template.metadata.labels[controller-uid]: Invalid value: "
     f"{_generated(**{'controller-uid': '1'})}: must be '{CRON_UID}'"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "errors"), [r[1:] for r in CRON_JOBS_REFUSED], ids=[r[0] for r in CRON_JOBS_REFUSED]
)
def test_a_cronjob_whose_jobs_the_api_server_refuses_is_an_error_naming_the_job(
    edit: Edit, errors: str
) -> None:
    body = job("CronJob")
    edit(body)
    assert reason(body) == (
        f'every Job CronJob "c" creates is refused: Job.batch "{CRON_JOB}" is invalid: {errors}'
    )


def test_a_cronjob_whose_pods_carry_its_jobs_own_name_is_taken() -> None:
    body = job("CronJob")
    _cron_labels(**{"app": "x", "job-name": CRON_JOB})(body)
    assert reason(body) is None
