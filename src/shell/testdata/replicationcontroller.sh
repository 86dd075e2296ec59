# A ReplicationController: the replication manager's pods, events and status; get, describe, scale, expose, get all.
$ cat > rc.yaml <<EOF
apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        ports:
        - containerPort: 80
EOF
$ kubectl apply -f rc.yaml
$ sleep 20
$ kubectl get rc
$ kubectl get replicationcontrollers -o wide
$ kubectl get rc nginx -o jsonpath='{.spec.selector}{"\n"}{.metadata.labels}{"\n"}{.status}{"\n"}'
$ kubectl get all
$ kubectl describe rc nginx
$ kubectl scale rc nginx --replicas=1
$ sleep 5
$ kubectl get rc,pods
$ kubectl expose rc nginx --port=80
$ kubectl get ep nginx
$ kubectl get rc --field-selector status.replicas=1
$ kubectl api-resources | grep -e NAME -e replicationcontrollers
$ kubectl create -f - <<EOF
apiVersion: v1
kind: ReplicationController
metadata:
  name: bad
spec:
  selector:
    app: web
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
EOF
$ kubectl delete rc nginx
$ sleep 40
$ kubectl get pods
