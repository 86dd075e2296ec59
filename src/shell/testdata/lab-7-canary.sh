# Lab guide §7: canary release: web-28 (stable) and web-29 (canary) behind one Service; 8:2 then 6:4.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
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
$ sed -e "s/web-28/web-29/" -e "s/stable/canary/g" -e "s/1.28/1.29/" -e "s/index28/index29/" -e "s/replicas: 10/replicas: 1/" webapp-1.28.yaml > webapp-1.29.yaml
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
$ sleep 30
$ kubectl get deploy
$ kubectl scale deployment web-28 --replicas 8
$ kubectl scale deployment web-29 --replicas 2
$ sleep 30
$ kubectl get pods -l track=canary
# The guide types the ClusterIP it saw (10.98.235.36 there).
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c
$ kubectl scale deployment web-28 --replicas 6
$ kubectl scale deployment web-29 --replicas 4
$ sleep 30
$ kubectl get deploy
$ for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c
