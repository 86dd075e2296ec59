# Lab guide §5.4: an ExternalName Service is a CNAME in CoreDNS; nothing is proxied.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ cat > www.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: www
spec:
  type: ExternalName
  externalName: www.laoma.cloud
EOF
$ kubectl apply -f www.yaml
$ kubectl get svc www
$ iptables-save | grep -c www
$ kubectl run busybox --rm -it --image=busybox /bin/sh
$ nslookup www.services.svc.cluster.local
$ nslookup www
$ exit
