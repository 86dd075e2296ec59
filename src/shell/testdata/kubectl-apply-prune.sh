# kubectl apply --prune: what the files no longer hold goes, within the selector, the namespaces
# apply visited and the allowlist; objects not made by apply stay; kubectl's refusals and words
$ cat > app.yaml <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.28}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-v1, labels: {app: web}}
data: {index.html: v1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other, labels: {app: other}}
Y
$ kubectl apply -f app.yaml
$ kubectl create configmap web-manual && kubectl label configmap web-manual app=web
$ sed -e 's/web-v1/web-v2/' -e 's/v1}/v2}/' app.yaml > app-v2.yaml
$ kubectl apply --prune -f app-v2.yaml
$ kubectl apply --prune --all -l app=web -f app-v2.yaml
$ kubectl apply --prune -l app=web --force -f app-v2.yaml
$ kubectl apply --prune -l app=web --server-side -f app-v2.yaml
$ kubectl apply --prune -l app=web --prune-allowlist=v1/ConfigMap -f app-v2.yaml
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/Widget -f app-v2.yaml
$ kubectl apply -l 'app in (' -f app-v2.yaml
$ kubectl apply -l app=nothing -f app-v2.yaml
# Dry runs name what would go, and nothing goes.
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/ConfigMap --prune-allowlist=apps/v1/Deployment -f app-v2.yaml --dry-run=client
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/ConfigMap --prune-allowlist=apps/v1/Deployment -f app-v2.yaml --dry-run=server
$ kubectl get configmaps --show-labels
# The default allowlist names every kind kubectl prunes, and the cluster serves them all.
$ kubectl apply --prune -l app=web -f app-v2.yaml
$ kubectl get configmaps --show-labels
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/ConfigMap -f app-v2.yaml
# Only the Service in the next file: the Deployment goes too when its kind is allowed.
$ sed -n '/kind: Service/,/ports/p' app-v2.yaml | sed '1i apiVersion: v1' > svc.yaml
$ kubectl apply --prune -l app=web --prune-allowlist=apps/v1/Deployment --prune-allowlist=core/v1/Service -f svc.yaml -o name
$ kubectl get deploy,svc
# In another namespace: what -n applies there is the file's, and the old Service there goes.
$ kubectl create namespace team && kubectl apply -n team -f svc.yaml
$ cat > team-cm.yaml <<'Y'
apiVersion: v1
kind: ConfigMap
metadata: {name: team-conf, labels: {app: web}}
Y
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/Service -n team -f team-cm.yaml
$ kubectl get svc,cm -n team
$ kubectl get svc web
$ kubectl apply --prune -l app=web --prune-allowlist=core/v1/Service -f /dev/null
