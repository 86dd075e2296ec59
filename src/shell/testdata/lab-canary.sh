# Lab guide §7 and §8.3: configmap from a directory, canary Deployments from YAML, kube-proxy mode
$ mkdir web
$ echo hello nginx 1.28 > web/index28.html
$ echo hello nginx 1.29 > web/index29.html
$ kubectl create configmap web --from-file=./web
$ cat <<EOF > webapp-1.28.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app: web}
  name: web-28
spec:
  replicas: 10
  selector:
    matchLabels: {app: web, tier: frontend, track: stable}
  template:
    metadata:
      labels: {app: web, tier: frontend, track: stable}
    spec:
      containers:
      - image: hub.laoma.cloud/library/nginx:1.28
        name: nginx
        imagePullPolicy: IfNotPresent
        ports:
        - containerPort: 80
        volumeMounts:
        - name: webcontent
          mountPath: "/usr/share/nginx/html"
      volumes:
      - name: webcontent
        configMap:
          name: web
          items:
          - key: index28.html
            path: index.html
EOF
$ sed -e 's/web-28/web-29/' -e 's/stable/canary/g' -e 's/1.28/1.29/' -e 's/index28/index29/' -e 's/replicas: 10/replicas: 1/' webapp-1.28.yaml > webapp-1.29.yaml
$ cat <<EOF > webapp-svc.yaml
apiVersion: v1
kind: Service
metadata:
  labels: {app: web}
  name: web
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 80
  selector:
    app: web
    tier: frontend
EOF
$ kubectl apply -f webapp-1.28.yaml
$ kubectl apply -f webapp-svc.yaml
$ kubectl apply -f webapp-1.29.yaml
$ kubectl scale deployment web-28 --replicas 8
$ kubectl scale deployment web-29 --replicas 2
$ sleep 60
$ kubectl get deploy
$ kubectl exec deploy/web-29 -- cat /usr/share/nginx/html/index.html
$ kubectl get cm
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name
$ kubectl edit configmap -n kube-system kube-proxy
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl rollout restart daemonset -n kube-system kube-proxy
$ kubectl rollout status ds kube-proxy -n kube-system
$ kubectl get ds -n kube-system
$ kubectl get events --field-selector involvedObject.kind=DaemonSet -n kube-system
