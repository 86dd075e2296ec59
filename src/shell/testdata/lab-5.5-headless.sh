# Lab guide §5.5: a headless Service with a selector: EndpointSlices, no ClusterIP, DNS answers the pods' A records.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ cat > web-headless.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: web-headless
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 80
EOF
$ kubectl apply -f web-headless.yaml
$ sleep 20
$ kubectl get svc web-headless
$ kubectl get endpointslices -l kubernetes.io/service-name=web-headless
$ kubectl get pods -o wide
$ iptables-save | grep -c web-headless
$ kubectl run busybox --rm -it --image=busybox /bin/sh
$ nslookup web-headless
$ exit
