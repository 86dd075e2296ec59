# Lab guide §5.2 then §5.3 on one Service, as a student runs them in order: 5.2's NodePort file is
# applied, then 5.3's LoadBalancer file for the same Service (another ports list). kubectl apply's
# three-way merge deletes the 8080 port and adds 80 (the real kubectl 1.33 sends the same patch:
# test/kubeapi/apply.e2e.test.ts).
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl expose deployment web --type NodePort --port=8080 --target-port=80 \
-o yaml --dry-run=client > service-NodePort.yaml
$ kubectl apply -f service-NodePort.yaml
$ kubectl get service
$ wget -q https://laoma.cloud/.../metallb-0.14.8.tar.gz
$ tar -xf metallb-0.14.8.tar.gz
$ kubectl apply -f metallb-0.14.8/config/manifests/metallb-native.yaml > /dev/null
$ sleep 30
$ cat > ippool.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: first-pool
  namespace: metallb-system
spec:
  addresses:
  - 10.1.8.40-10.1.8.80
EOF
$ cat > L2.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: example
  namespace: metallb-system
EOF
$ kubectl apply -f ippool.yaml
$ kubectl apply -f L2.yaml
$ kubectl expose deployment web --type LoadBalancer --port=80 --target-port=80 \
-o yaml --dry-run=client > service-LoadBalancer.yaml
$ kubectl apply -f service-LoadBalancer.yaml
$ kubectl get service
$ kubectl get svc web -o jsonpath='{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}'
$ curl http://10.1.8.40:80
$ kubectl apply -f service-LoadBalancer.yaml
